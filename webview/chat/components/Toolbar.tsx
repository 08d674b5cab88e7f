// The header: session title and model, and the chat actions (New chat, Compact now with an optional
// focus prompt, Open inspector, API key).
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../context';

export function Toolbar({
  title,
  model,
  hasApiKey,
  compacting,
}: {
  title: string;
  model: string;
  hasApiKey: boolean;
  compacting: boolean;
}) {
  const store = useStore();
  const [compactOpen, setCompactOpen] = useState(false);
  return (
    <header class="toolbar">
      <div class="toolbar-row">
        <div class="session-title" title={model ? `${title || 'New chat'} · ${model}` : title || 'New chat'}>
          <span class="title-text">{title || 'New chat'}</span>
        </div>
        <nav class="actions" aria-label="Chat actions">
          {model ? (
            <button
              type="button"
              class="tb-button model-button"
              onClick={store.pickModel}
              title="Choose the model"
              aria-label={`Model: ${model}. Choose the model`}
            >
              {model}
            </button>
          ) : null}
          <button type="button" class="tb-button" onClick={store.newChat} title="Start a new chat">
            New chat
          </button>
          <button
            type="button"
            class="tb-button"
            aria-expanded={compactOpen}
            aria-controls="compact-form"
            disabled={compacting}
            onClick={() => setCompactOpen((v) => !v)}
            title="Compact the conversation now"
          >
            {compacting ? 'Compacting…' : 'Compact'}
          </button>
          <button type="button" class="tb-button" onClick={store.openInspector} title="Open the context inspector">
            Inspector
          </button>
          <button
            type="button"
            class={hasApiKey ? 'tb-button' : 'tb-button attention'}
            onClick={store.setApiKey}
            title={hasApiKey ? 'Change the Anthropic API key' : 'Set your Anthropic API key'}
          >
            {hasApiKey ? 'API key' : 'Set API key'}
          </button>
        </nav>
      </div>
      {compactOpen && !compacting ? <CompactForm onClose={() => setCompactOpen(false)} /> : null}
    </header>
  );
}

function CompactForm({ onClose }: { onClose: () => void }) {
  const store = useStore();
  const [focus, setFocus] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = () => {
    store.compact(focus);
    onClose();
  };
  return (
    <div id="compact-form" class="compact-form" role="group" aria-label="Compact now">
      <input
        ref={input}
        class="text-input"
        type="text"
        value={focus}
        maxLength={2000}
        placeholder="Focus (optional): what the summary should keep"
        aria-label="Compaction focus (optional)"
        onInput={(e) => setFocus(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.isComposing) {
            e.preventDefault();
            submit();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onClose();
          }
        }}
      />
      <button type="button" class="button primary" onClick={submit}>
        Compact now
      </button>
      <button type="button" class="button secondary" onClick={onClose}>
        Cancel
      </button>
    </div>
  );
}
