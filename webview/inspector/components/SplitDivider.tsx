// A split point on the timeline: the labelled divider between two rows, for the current history (where
// its summary or tail starts) and for the previewed plan (what it would archive there).
import type { MessageRow, PlanView } from '../../../src/protocol';
import { formatInt } from '../../shared/format';
import type { Gap } from '../layout';

export interface SplitDividerProps {
  gap: Gap;
  top: number;
  /** The row right after the divider, if any. */
  below: MessageRow | undefined;
  plan: PlanView | null;
  planTitle: string;
}

export function SplitDivider({ gap, top, below, plan, planTitle }: SplitDividerProps) {
  return (
    <div
      class={`split-divider split-${gap.kind}`}
      data-marker={`${gap.kind}-split`}
      data-split-index={gap.index}
      aria-hidden="true"
      style={{ top: `${top}px` }}
    >
      <span class="split-line" />
      <span class="split-label">{dividerLabel(gap, below, plan, planTitle)}</span>
    </div>
  );
}

function dividerLabel(gap: Gap, below: MessageRow | undefined, plan: PlanView | null, planTitle: string): string {
  if (gap.kind === 'current') {
    return below?.kind === 'summary'
      ? 'Split point · current history: the summary below stands for the archived history'
      : below?.kind === 'placeholder'
        ? 'Split point · current history: earlier messages were archived'
        : 'Split point · current history: the tail starts below';
  }
  if (!plan) return 'Split point · preview';
  const archived = plan.archivedIds.length;
  return archived === 0
    ? `Split point · preview (${planTitle}): nothing archived`
    : `Split point · preview (${planTitle}): ${formatInt(archived)} archived${plan.needsSummary ? ' → new summary here' : ''}`;
}
