// Context window usage: system prompt, tool definitions, conversation, tool results, summaries and free
// space as one stacked bar, with the auto-compact threshold as a line. The message figures are o200k
// estimates; for a recording, the last call's recorded input (ground truth) is shown beside them and
// marked on the bar, and the overhead is the prefix fitted from the recorded usage (or unknown).
import type { UsageBreakdown } from '../../../src/protocol';
import { formatInt, formatShare } from '../../shared/format';
import { OutsideCompaction, StandingSegments } from './OutsideCompaction';
import { AutoCompactNote } from './AutoCompactNote';

/** How each window source is named beside the window. */
const WINDOW_SOURCE_TEXT: Record<Exclude<NonNullable<UsageBreakdown['windowSource']>, 'settings'>, string> = {
  recording: 'as recorded',
  'inferred-from-usage': 'inferred from recorded usage',
  model: "the recorded model's window",
};

interface Segment {
  key: string;
  label: string;
  tokens: number;
}

export function UsageBar({ usage }: { usage: UsageBreakdown }) {
  const conversation = Math.max(0, usage.messages - usage.toolResults - usage.summaries);
  const instructions = usage.standing?.instructionTokens ?? 0;
  const todo = usage.standing?.todo.tokens ?? 0;
  const used = usage.system + usage.tools + instructions + todo + usage.messages;
  const scale = Math.max(usage.window, used, usage.recorded?.call.input ?? 0, 1);
  const source = usage.overheadSource ?? 'agent';
  const overhead: Segment[] =
    source === 'agent'
      ? [
          { key: 'system', label: 'System prompt', tokens: usage.system },
          { key: 'tools', label: 'Tool definitions', tokens: usage.tools },
        ]
      : [{ key: 'system', label: source === 'fitted' ? 'System prompt + tools (fitted)' : 'System prompt + tools', tokens: usage.system }];
  const standing: Segment[] = usage.standing
    ? [
        { key: 'instructions', label: 'Instructions', tokens: instructions },
        { key: 'todo', label: 'Task list', tokens: todo },
      ]
    : [];
  const segments: Segment[] = [
    ...overhead,
    ...standing,
    { key: 'messages', label: 'Messages', tokens: conversation },
    { key: 'tool-results', label: 'Tool results', tokens: usage.toolResults },
    { key: 'summaries', label: 'Summaries', tokens: usage.summaries },
    { key: 'free', label: 'Free', tokens: usage.free },
  ];
  const pct = (t: number) => `${(t / scale) * 100}%`;
  const over = used - usage.window;
  const estimated = source === 'agent' ? '' : 'o200k estimate: ';
  const summary = `${estimated}${formatInt(used)} of ${formatInt(usage.window)} tokens used (${formatShare(used, usage.window)})`;
  const recorded = usage.recorded?.call;

  return (
    <section class="usage" aria-label="Context window usage">
      <div class="usage-head">
        <span class="usage-total" data-stat="used">
          {summary}
        </span>
        {usage.threshold !== null && <span class="usage-threshold-label">auto-compact at {formatInt(usage.threshold)}</span>}
        {over > 0 && <span class="usage-over">over the window by {formatInt(over)}</span>}
        {usage.windowSource && usage.windowSource !== 'settings' && (
          <span class="usage-window-source muted" data-field="window-source" title={usage.windowNote}>
            {formatInt(usage.window)} window ({WINDOW_SOURCE_TEXT[usage.windowSource]})
          </span>
        )}
      </div>
      {usage.autoCompact && <AutoCompactNote decision={usage.autoCompact} />}
      {recorded && (
        <div
          class="usage-recorded"
          data-stat="recorded"
          title="What the API counted for the last recorded model call (input + cache read + cache creation)"
        >
          <span class="usage-recorded-label">recorded</span> {formatInt(recorded.input)} tokens of input on the last call (
          {formatShare(recorded.input, usage.window)}){recorded.model && <span class="muted"> · {recorded.model}</span>}
        </div>
      )}
      <div class="usage-bar" role="img" aria-label={`${summary}. ${segments.map((s) => `${s.label} ${formatInt(s.tokens)}`).join(', ')}`}>
        {segments.map((s) =>
          s.tokens > 0 ? (
            <span
              key={s.key}
              class={`usage-seg seg-${s.key}`}
              data-segment={s.key}
              style={{ width: pct(s.tokens) }}
              title={`${s.label}: ${formatInt(s.tokens)} tokens`}
            />
          ) : null,
        )}
        {over > 0 && <span class="usage-window-edge" style={{ left: pct(usage.window) }} title="End of the context window" />}
        {recorded && (
          <span
            class="usage-recorded-mark"
            data-marker="recorded"
            style={{ left: pct(Math.min(recorded.input, scale)) }}
            title={`Recorded input of the last call: ${formatInt(recorded.input)} tokens`}
          />
        )}
        {usage.threshold !== null && (
          <span
            class="usage-threshold"
            data-marker="threshold"
            style={{ left: pct(Math.min(usage.threshold, scale)) }}
            title={`Auto-compact threshold: ${formatInt(usage.threshold)} tokens`}
          />
        )}
      </div>
      <ul class="legend usage-legend">
        {segments.map((s) => (
          <li key={s.key}>
            <span class={`legend-swatch seg-${s.key}`} aria-hidden="true" />
            {s.label} <span class="legend-value">{s.key === 'system' && source === 'unknown' ? 'unknown' : formatInt(s.tokens)}</span>
          </li>
        ))}
      </ul>
      {usage.standing && <StandingSegments standing={usage.standing} />}
      {usage.outside && <OutsideCompaction outside={usage.outside} />}
    </section>
  );
}
