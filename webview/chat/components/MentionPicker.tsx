// The @-mention picker: the workspace files ranked by fuzzy match against what follows the `@`,
// shown above the composer as a listbox. The textarea keeps the focus (arrow keys, Enter / Tab,
// Escape are handled by the composer; aria-activedescendant names the highlighted option).
import type { RankedPath } from '../fuzzy';

export const MENTION_PICKER_ID = 'mention-picker';
export const mentionOptionId = (i: number): string => `mention-option-${i}`;

function Highlighted({ path, positions }: { path: string; positions: readonly number[] }) {
  const marks = new Set(positions);
  const parts: Array<{ text: string; hit: boolean }> = [];
  for (let i = 0; i < path.length; i++) {
    const hit = marks.has(i);
    const last = parts.at(-1);
    if (last && last.hit === hit) last.text += path[i];
    else parts.push({ text: path[i]!, hit });
  }
  return <>{parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}</>;
}

export function MentionPicker({
  results,
  active,
  loading,
  truncated,
  onPick,
  onHover,
}: {
  results: readonly RankedPath[];
  active: number;
  loading: boolean;
  truncated: boolean;
  onPick: (path: string) => void;
  onHover: (index: number) => void;
}) {
  return (
    <div class="mention-picker">
      <ul id={MENTION_PICKER_ID} role="listbox" aria-label="Workspace files">
        {results.map((r, i) => (
          <li
            key={r.path}
            id={mentionOptionId(i)}
            role="option"
            aria-selected={i === active}
            class={i === active ? 'mention-option active' : 'mention-option'}
            // mousedown, not click: the textarea must not lose the focus (and the caret) first.
            onMouseDown={(e) => {
              e.preventDefault();
              onPick(r.path);
            }}
            onMouseEnter={() => onHover(i)}
          >
            <Highlighted path={r.path} positions={r.positions} />
          </li>
        ))}
      </ul>
      {loading ? <div class="mention-note">Listing the workspace…</div> : null}
      {!loading && results.length === 0 ? <div class="mention-note">No matching file.</div> : null}
      {truncated ? <div class="mention-note">Only the first files of a large workspace are listed.</div> : null}
    </div>
  );
}
