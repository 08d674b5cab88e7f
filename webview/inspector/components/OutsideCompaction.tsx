// What every request carries that no compaction removes (issue 23): the system prompt, the tools, the
// standing instructions, the task list and the pins, with their cost per request. Shown under the
// usage bar and on the preview card; the usage bar also lists the standing segments one by one.
import type { OutsideCompactionView, StandingView } from '../../../src/protocol';
import { formatInt } from '../../shared/format';

const PARTS: Array<[keyof Omit<OutsideCompactionView, 'total'>, string]> = [
  ['system', 'system prompt'],
  ['tools', 'tools'],
  ['instructions', 'instructions'],
  ['todo', 'task list'],
  ['pinned', 'pins'],
];

export function OutsideCompaction({ outside, what = 'every request' }: { outside: OutsideCompactionView; what?: string }) {
  return (
    <p class="outside-compaction" data-stat="outside-compaction" title="No compaction removes these: every request carries them">
      <span class="outside-label">Outside compaction, {what}:</span>{' '}
      {PARTS.map(([key, label], i) => (
        <span key={key} data-outside={key}>
          {i > 0 ? ' · ' : ''}
          {label} {formatInt(outside[key])}
        </span>
      ))}{' '}
      = <strong data-outside="total">{formatInt(outside.total)}</strong> tokens
    </p>
  );
}

/** The standing segments: each instruction source with its tokens (or why it is not sent), and the task list. */
export function StandingSegments({ standing }: { standing: StandingView }) {
  const { todo } = standing;
  if (standing.instructions.length === 0 && todo.items === 0) return null;
  return (
    <ul class="standing-segments" aria-label="Standing context, sent with every request outside the history">
      {standing.instructions.map((s) => (
        <li key={s.name} class="standing-segment" data-standing="instructions" data-name={s.name}>
          <span class="legend-swatch seg-instructions" aria-hidden="true" />
          {s.name} <span class="legend-value">{s.sent ? `${formatInt(s.tokens)} tokens` : 'listed, not sent (untrusted workspace)'}</span>
          {s.truncated ? <span class="muted"> · cut to the caps</span> : null}
        </li>
      ))}
      {todo.items > 0 && (
        <li class="standing-segment" data-standing="todo">
          <span class="legend-swatch seg-todo" aria-hidden="true" />
          Task list ({todo.done}/{todo.items} done) <span class="legend-value">{formatInt(todo.tokens)} tokens</span>
        </li>
      )}
    </ul>
  );
}
