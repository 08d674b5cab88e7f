// "Split here" on one message of the timeline: "Compact everything before this" previews the split-at
// strategy at that message (then apply / undo as usual), and a toggle chooses whether an LLM writes the
// summary. Row actions in the RowActions list; the keyboard's Shift+S on the focused row does the same.
import type { MessageRow } from '../../../src/protocol';
import { rowName, type RowAction } from './RowActions';

/** The two row actions: compact everything before `row`, and the "with an LLM summary" toggle. */
export function splitHereActions(
  row: MessageRow,
  withSummary: boolean,
  onSplit: (id: string, withSummary: boolean) => void,
  onToggleSummary: () => void,
): RowAction[] {
  return [
    {
      id: 'split-here',
      label: 'Compact before this',
      ariaLabel: `Compact everything before message ${rowName(row)}`,
      title:
        `Preview compacting everything before this message ${withSummary ? 'with an LLM summary' : 'without a summary'} ` +
        '(Shift+S on the focused row); the split snaps to a safe boundary',
      run: () => onSplit(row.id, withSummary),
    },
    {
      id: 'split-summary',
      label: 'With an LLM summary',
      ariaLabel: 'Compact before a message with an LLM summary',
      pressed: withSummary,
      title: withSummary ? 'An LLM summarizes what is compacted' : 'No model call: a placeholder (with the artifact ledger) opens the tail',
      run: onToggleSummary,
    },
  ];
}

/** Shift+S on the focused timeline row: "compact everything before this" (true: handled). */
export function splitKey(e: KeyboardEvent, cur: number, onSplitHere: ((index: number) => void) | undefined): boolean {
  if (e.key !== 'S' || !e.shiftKey || e.ctrlKey || e.metaKey || e.altKey || cur < 0 || !onSplitHere) return false;
  e.preventDefault();
  onSplitHere(cur);
  return true;
}
