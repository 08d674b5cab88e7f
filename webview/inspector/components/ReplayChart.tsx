// "Replay" on an inspected file: the host replays the recording call by call under each built-in
// configuration (splitpoint replay) and this panel draws what it sent: context tokens per call for each
// configuration with its compactions marked and the window as a line, and the cumulative cost. Plain
// SVG; colours come from the stylesheet (one class per series), nothing is computed but the scales.
import type { InspectorSession, ReplayConfigView, ReplayView } from '../../../src/protocol';
import { formatInt, formatPercent, plural } from '../../shared/format';
import { useStore } from '../context';
import { ReplayFrontier } from './ReplayFrontier';

const W = 320;
const H = 130;
const PAD = { left: 46, right: 8, top: 8, bottom: 18 };
/** Series colours cycle through this many stylesheet classes. */
const SERIES = 6;

const usd = (x: number) => `$${x.toFixed(x >= 100 ? 0 : 2)}`;
const kTok = (x: number) => (x >= 1_000 ? `${formatInt(x / 1_000)}K` : formatInt(x));
/** A recall as a whole percentage; null (the configuration carries no ledger) as "—". */
const recall = (x: number | null) => (x === null ? '—' : formatPercent(x));
/** The as-recorded replay's error against the recorded cost: "+0.4%", "−1.2%". */
const signedPercent = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(100 * x).toFixed(1)}%`;

const WINDOW_SOURCE: Record<ReplayView['windowSource'], string> = {
  recorded: 'recorded in the session',
  'inferred-from-usage': 'inferred from usage: a recorded request was larger than the model table’s window',
  'model-table': 'from the model table: the recording does not say',
  user: 'set by the user',
};
const TTL: Record<ReplayView['recordedTtl'], string> = { '5m': '5-minute', '1h': '1-hour' };

interface Scale {
  x(call: number): number;
  y(value: number): number;
}

function scale(calls: number, max: number): Scale {
  const w = W - PAD.left - PAD.right;
  const h = H - PAD.top - PAD.bottom;
  return {
    x: (call) => PAD.left + (calls <= 1 ? 0 : ((call - 1) / (calls - 1)) * w),
    y: (v) => PAD.top + h - (max <= 0 ? 0 : (v / max) * h),
  };
}

const path = (c: ReplayConfigView, s: Scale, value: (p: ReplayConfigView['points'][number]) => number) =>
  c.points.map((p) => `${s.x(p.call).toFixed(1)},${s.y(value(p)).toFixed(1)}`).join(' ');

function Axes({ s, calls, top, label }: { s: Scale; calls: number; top: string; label: string }) {
  return (
    <g class="replay-axes">
      <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={H - PAD.bottom} />
      <line x1={PAD.left} y1={H - PAD.bottom} x2={W - PAD.right} y2={H - PAD.bottom} />
      <text x={PAD.left - 4} y={PAD.top + 8} text-anchor="end">
        {top}
      </text>
      <text x={PAD.left - 4} y={H - PAD.bottom} text-anchor="end">
        0
      </text>
      <text x={PAD.left} y={H - 4}>
        call 1
      </text>
      <text x={s.x(calls)} y={H - 4} text-anchor="end">
        {label} {formatInt(calls)}
      </text>
    </g>
  );
}

function ContextChart({ replay }: { replay: ReplayView }) {
  const calls = Math.max(1, replay.recordedCalls);
  const max = Math.max(replay.window, ...replay.configs.map((c) => c.peakContextTokens));
  const s = scale(calls, max);
  const label = `Context tokens per call for ${replay.configs.length} configurations; window ${formatInt(replay.window)} tokens`;
  return (
    <svg class="replay-chart" data-chart="context" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <Axes s={s} calls={calls} top={kTok(max)} label="call" />
      <line class="replay-window" x1={PAD.left} x2={W - PAD.right} y1={s.y(replay.window)} y2={s.y(replay.window)}>
        <title>window {formatInt(replay.window)} tokens</title>
      </line>
      {replay.configs.map((c, i) => (
        <g key={c.name} class={`replay-series replay-series-${i % SERIES}`} data-config={c.name}>
          <polyline class="replay-line" points={path(c, s, (p) => p.contextTokens)} />
          {c.points
            .filter((p) => p.compaction)
            .map((p) => (
              <circle key={p.call} class="replay-compaction" data-call={p.call} cx={s.x(p.call)} cy={s.y(p.contextTokens)} r={3.5}>
                <title>
                  {c.name}: compaction before call {p.call} ({formatInt(p.contextTokens)} tokens after)
                </title>
              </circle>
            ))}
          {c.stoppedAt !== null && (
            <text class="replay-stop" data-call={c.stoppedAt} x={s.x(Math.min(c.stoppedAt, calls))} y={PAD.top + 10} text-anchor="middle">
              ×
              <title>
                {c.name}: the window overflows at call {c.stoppedAt}
              </title>
            </text>
          )}
        </g>
      ))}
    </svg>
  );
}

function CostChart({ replay }: { replay: ReplayView }) {
  const calls = Math.max(1, replay.recordedCalls);
  const max = Math.max(0, ...replay.configs.map((c) => c.points.at(-1)?.cumulativeCostUSD ?? 0));
  const s = scale(calls, max);
  return (
    <svg class="replay-chart" data-chart="cost" viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Cumulative cost per configuration">
      <Axes s={s} calls={calls} top={usd(max)} label="call" />
      {replay.configs.map((c, i) => (
        <g key={c.name} class={`replay-series replay-series-${i % SERIES}`} data-config={c.name}>
          <polyline class="replay-line" points={path(c, s, (p) => p.cumulativeCostUSD)} />
        </g>
      ))}
    </svg>
  );
}

export interface ReplayPanelProps {
  session: InspectorSession;
  replay: ReplayView | null;
  busy: boolean;
}

/** Shown for an inspected file only (the current session has no recorded calls to replay). */
export function ReplayPanel({ session, replay, busy }: ReplayPanelProps) {
  const store = useStore();
  if (!session.readOnly || session.source === 'Current session') return null;
  return (
    <section class="panel replay" aria-labelledby="sp-replay-title">
      <div class="replay-head">
        <h2 id="sp-replay-title">Replay</h2>
        <button type="button" class="secondary" data-action="replay" disabled={busy} onClick={store.replay}>
          {replay ? 'Replay again' : 'Replay'}
        </button>
      </div>
      <p class="muted">
        Every recorded call again under each configuration (as recorded, no compaction, Claude Code-like, Codex-like, Splitpoint&apos;s
        defaults, and your settings when they differ from the defaults), priced with prompt caching. Summaries are stand-ins of the recorded
        size.
      </p>
      {replay && (
        <>
          <p class="muted" data-field="window">
            Window {formatInt(replay.window)} tokens ({WINDOW_SOURCE[replay.windowSource]})
          </p>
          {replay.warnings.length > 0 && (
            <ul class="replay-warnings">
              {replay.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          )}
          <h3>Context tokens per call</h3>
          <ContextChart replay={replay} />
          <h3>Cumulative cost</h3>
          <CostChart replay={replay} />
          <ul class="replay-legend">
            {replay.configs.map((c, i) => (
              <li key={c.name} data-config={c.name}>
                <span class={`replay-swatch replay-series-${i % SERIES}`} aria-hidden="true" />
                <span class="replay-name">{c.name}</span> <span data-field="cost">{usd(c.costUSD)}</span>
                {c.costErrorVsRecorded !== null && (
                  <span data-field="error-vs-recorded"> ({signedPercent(c.costErrorVsRecorded)} vs recorded)</span>
                )}{' '}
                · {plural(c.compactions, 'compaction')} · path recall <span data-field="path-recall">{recall(c.pathRecall)}</span> · prompt
                recall <span data-field="prompt-recall">{recall(c.promptRecall)}</span> · ledger recall{' '}
                <span data-field="ledger-recall">{recall(c.ledgerRecall)}</span>
                {c.stoppedAt !== null && <span class="replay-stopped"> · window overflows at call {formatInt(c.stoppedAt)}</span>}
              </li>
            ))}
          </ul>
          <ReplayFrontier replay={replay} />
          {replay.recordedCostUSD !== null && (
            <p class="muted" data-field="recorded">
              Recorded: {usd(replay.recordedCostUSD)}{' '}
              {replay.recordedCacheWriteTokens === 0
                ? '(no cache writes recorded)'
                : `(cache writes priced at the recorded ${TTL[replay.recordedTtl]} TTL)`}
            </p>
          )}
        </>
      )}
    </section>
  );
}
