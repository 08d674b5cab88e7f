// Actions on one message of the inspector timeline (pin / unpin; "compact everything before this"
// and others add theirs to the list): a toolbar of real buttons, reachable by Tab, each with an
// aria-label that names the message. Components only render: each action calls a store method.
import type { MessageRow } from '../../../src/protocol';
import { KIND_LABEL } from '../kinds';

export interface RowAction {
  /** Stable key; also the button's data-action. */
  id: string;
  /** What the button says. */
  label: string;
  /** What a screen reader says (names the message). */
  ariaLabel: string;
  /** A toggle's state (aria-pressed), when the action is one. */
  pressed?: boolean;
  disabled?: boolean;
  /** Shown on hover: why it is disabled, or what it does. */
  title?: string;
  run(): void;
}

/** "#12 · user": how an action names its message. */
export function rowName(row: Pick<MessageRow, 'index' | 'kind'>): string {
  return `#${row.index} · ${KIND_LABEL[row.kind]}`;
}

/** Pin or unpin `row` (pinned messages survive every compaction verbatim). */
export function pinAction(row: MessageRow, onPin: (id: string) => void, onUnpin: (id: string) => void): RowAction {
  const pinned = row.pinned === true;
  return {
    id: pinned ? 'unpin' : 'pin',
    label: pinned ? 'Unpin' : 'Pin',
    ariaLabel: `${pinned ? 'Unpin' : 'Pin'} message ${rowName(row)}`,
    pressed: pinned,
    title: pinned
      ? 'Pinned: kept verbatim by every compaction. Unpin to let compaction archive it.'
      : 'Keep this message verbatim through every compaction',
    run: () => (pinned ? onUnpin(row.id) : onPin(row.id)),
  };
}

/** On a prompt of the current session: restore the files to before it (the chat previews, then confirms). */
export function restoreFilesAction(row: MessageRow, onRestore: (id: string) => void): RowAction {
  return {
    id: 'restore-files',
    label: 'Restore files to before this',
    ariaLabel: `Restore files to before message ${rowName(row)}`,
    title: 'Preview (in the chat) which files would change back to how they were before this prompt; the history is not changed',
    run: () => onRestore(row.id),
  };
}

/** On the summary or opener row a compaction of the current session wrote: ask the model its probes. */
export function checkCompactionAction(row: MessageRow, compactionId: string, onCheck: (id: string) => void): RowAction {
  return {
    id: 'check-compaction',
    label: 'Check this compaction',
    ariaLabel: `Check the compaction that wrote message ${rowName(row)}`,
    title: 'Ask the model the probes of what this compaction archived (the cost is shown before it runs)',
    run: () => onCheck(compactionId),
  };
}

/** The actions on a row of the current session: pin / unpin, and on a prompt, restore the files to before it. */
export function currentSessionActions(
  row: MessageRow,
  on: { pin(id: string): void; unpin(id: string): void; restoreFiles(id: string): void },
): RowAction[] {
  const pin = pinAction(row, on.pin, on.unpin);
  return row.kind === 'user-prompt' ? [pin, restoreFilesAction(row, on.restoreFiles)] : [pin];
}

export function RowActions({ row, actions }: { row: MessageRow; actions: readonly RowAction[] }) {
  if (actions.length === 0) return null;
  return (
    <div class="row-actions" role="toolbar" aria-label={`Actions on message ${rowName(row)}`} data-row-id={row.id}>
      {actions.map((a) => (
        <button
          key={a.id}
          type="button"
          class={`secondary row-action row-action-${a.id}`}
          data-action={a.id}
          aria-label={a.ariaLabel}
          aria-pressed={a.pressed}
          disabled={a.disabled}
          title={a.title}
          onClick={a.run}
        >
          {a.id === 'pin' || a.id === 'unpin' ? <PinIcon /> : null}
          {a.label}
        </button>
      ))}
    </div>
  );
}

/** The pin glyph, drawn as SVG (decorative: the button or marker around it carries the words). */
export function PinIcon() {
  return (
    <svg class="pin-icon" viewBox="0 0 16 16" width="12" height="12" fill="currentColor" aria-hidden="true" focusable="false">
      <path d="M10.5 1.5l4 4-1.2.6-2.1 2.1.4 3.2-1.1 1.1-2.9-2.9L4 13.2l-1.2.3.3-1.2 3.6-3.6-2.9-2.9 1.1-1.1 3.2.4 2.1-2.1z" />
    </svg>
  );
}

/** The marker on a pinned row (decorative: the row's aria-label says "pinned"). */
export function PinMarker() {
  return (
    <span class="badge badge-pinned" data-marker="pinned" title="Pinned: kept verbatim by every compaction">
      <PinIcon />
      <span class="badge-words">pinned</span>
    </span>
  );
}
