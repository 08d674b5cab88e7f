// Long monospace text (tool input/output, command output), capped with "Show all".
import { useState } from 'preact/hooks';
import { formatInt } from '../../shared/format';

export const OUTPUT_MAX_CHARS = 4_000;
export const OUTPUT_MAX_LINES = 60;

/** Where to cut `text` for the capped display, or null when it fits. */
export function capAt(text: string, maxChars = OUTPUT_MAX_CHARS, maxLines = OUTPUT_MAX_LINES): number | null {
  let cut = text.length > maxChars ? maxChars : text.length;
  let lines = 0;
  for (let i = 0; i < cut; i++) {
    if (text.charCodeAt(i) === 10 && ++lines >= maxLines) {
      cut = i;
      break;
    }
  }
  return cut < text.length ? cut : null;
}

export function OutputBlock({ text, label, class: className = '' }: { text: string; label: string; class?: string }) {
  const [all, setAll] = useState(false);
  const cut = capAt(text);
  const shown = cut === null || all ? text : text.slice(0, cut);
  return (
    <div class={`output ${className}`}>
      <pre class="mono" aria-label={label} tabIndex={0}>
        {shown}
        {cut !== null && !all ? <span class="elided">{'\n…'}</span> : null}
      </pre>
      {cut !== null ? (
        <button type="button" class="link-button" onClick={() => setAll((v) => !v)} aria-expanded={all}>
          {all ? 'Show less' : `Show all (${formatInt(text.length)} chars)`}
        </button>
      ) : null}
    </div>
  );
}
