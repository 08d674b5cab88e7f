// What the view shows before there is a conversation: the API key call to action, or a welcome.
import { useStore } from '../context';

export function ApiKeyNeeded() {
  const store = useStore();
  return (
    <section class="empty api-key" aria-label="API key needed">
      <h2>Set your Anthropic API key</h2>
      <p>Splitpoint talks to Claude with your own Anthropic API key. Set it to start chatting.</p>
      <button type="button" class="button primary big" onClick={store.setApiKey}>
        Set API key
      </button>
    </section>
  );
}

export function Welcome({ model }: { model: string }) {
  return (
    <section class="empty welcome" aria-label="Welcome">
      <h2>Ask Splitpoint</h2>
      <p>
        A coding agent whose context you can see. When the conversation nears the context window it is compacted — each compaction shows up
        here as a divider you can open, and the inspector previews what any strategy would drop.
      </p>
      {model ? <p class="muted">Model: {model}</p> : null}
    </section>
  );
}

export function RestrictedBanner() {
  return (
    <div class="banner" role="note">
      Restricted Mode: this workspace is not trusted, so the agent's tools are limited.
    </div>
  );
}
