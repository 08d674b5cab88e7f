// The frontier of a replay (issue 25): every configuration as a point, cost (x) against the probe
// answerable rate (y), the cost/rate frontier joined by a dashed line, the shipped default and the
// user's settings marked. A configuration that archived nothing has no rate: its point sits on a row of
// its own below the axis ("nothing archived"), never at 0 or 100%. The host computes the points and the
// frontier (src/inspector/replayFrontier.ts); this draws them. Colours come from the stylesheet.
import type { FrontierPointView, ReplayView } from '../../../src/protocol';
import { formatPercent } from '../../shared/format';

const W = 320;
const H = 168;
const PAD = { left: 46, right: 34, top: 10 };
/** Points start this far right of the rate axis (the cheapest is not drawn on it). */
const X_INSET = 12;
/** The rate axis runs from 100% at PAD.top to 0% here; the "nothing archived" row sits below it. */
const RATE_BOTTOM = 112;
const NONE_ROW = 134;
const AXIS_LABELS = H - 4;
/** Series colours cycle through this many stylesheet classes (as in the other replay charts). */
const SERIES = 6;

const usd = (x: number) => `$${x.toFixed(x >= 100 ? 0 : 2)}`;

const MARK_TEXT: Record<FrontierPointView['marks'][number], string> = { default: 'shipped default', yours: 'your settings' };

/** How a point is said: its name, cost, rate (or nothing archived), whether on the frontier, its marks. */
export function frontierPointText(p: FrontierPointView): string {
  const rate = p.probeRecall === null ? 'nothing archived (no probe rate)' : `probe rate ${formatPercent(p.probeRecall)}`;
  const marks = p.marks.map((m) => MARK_TEXT[m]);
  return [`${p.name}: ${usd(p.costUSD)}`, rate, ...(p.onFrontier ? ['on the frontier'] : []), ...marks].join(' · ');
}

function xScale(points: readonly FrontierPointView[]): (cost: number) => number {
  const costs = points.map((p) => p.costUSD);
  const lo = Math.min(...costs);
  const hi = Math.max(...costs);
  const w = W - PAD.left - X_INSET - PAD.right;
  if (!(hi > lo)) return () => PAD.left + X_INSET + w / 2;
  return (cost) => PAD.left + X_INSET + ((cost - lo) / (hi - lo)) * w;
}

const yOf = (rate: number) => RATE_BOTTOM - rate * (RATE_BOTTOM - PAD.top);

function Point({ p, x, series }: { p: FrontierPointView; x: number; series: number }) {
  const y = p.probeRecall === null ? NONE_ROW : yOf(p.probeRecall);
  const label = p.marks.length === 2 ? 'default = yours' : p.marks[0] === 'default' ? 'default' : p.marks[0] === 'yours' ? 'yours' : null;
  return (
    <g
      class={`frontier-point replay-series-${series % SERIES}${p.onFrontier ? ' on-frontier' : ''}`}
      data-config={p.name}
      data-rate={p.probeRecall === null ? 'none' : String(p.probeRecall)}
      data-marks={p.marks.join(' ')}
    >
      <title>{frontierPointText(p)}</title>
      {p.marks.includes('default') && <circle class="frontier-mark-default" cx={x} cy={y} r={7} />}
      {p.marks.includes('yours') && (
        <rect class="frontier-mark-yours" x={x - 6} y={y - 6} width={12} height={12} transform={`rotate(45 ${x} ${y})`} />
      )}
      <circle class="frontier-dot" cx={x} cy={y} r={3.5} />
      {label && (
        <text class="frontier-label" x={x} y={y - 10} text-anchor="middle">
          {label}
        </text>
      )}
    </g>
  );
}

function FrontierChart({ replay }: { replay: ReplayView }) {
  const points = replay.frontier;
  const x = xScale(points);
  const series = (name: string) =>
    Math.max(
      0,
      replay.configs.findIndex((c) => c.name === name),
    );
  const line = points
    .filter((p) => p.onFrontier && p.probeRecall !== null)
    .sort((a, b) => a.costUSD - b.costUSD)
    .map((p) => `${x(p.costUSD).toFixed(1)},${yOf(p.probeRecall!).toFixed(1)}`)
    .join(' ');
  const none = points.filter((p) => p.probeRecall === null).length;
  const on = points.filter((p) => p.onFrontier).length;
  const costs = points.map((p) => p.costUSD);
  const label =
    `Cost against probe answerable rate for ${points.length} configurations: ${on} on the frontier` +
    (none > 0 ? `, ${none} archived nothing (no rate)` : '');
  return (
    <svg class="replay-chart frontier-chart" data-chart="frontier" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <g class="replay-axes">
        <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={RATE_BOTTOM} />
        <line x1={PAD.left} y1={RATE_BOTTOM} x2={W - PAD.right} y2={RATE_BOTTOM} />
        <text x={PAD.left - 4} y={PAD.top + 4} text-anchor="end">
          100%
        </text>
        <text x={PAD.left - 4} y={RATE_BOTTOM} text-anchor="end">
          0%
        </text>
        {none > 0 && (
          <>
            <line class="frontier-none-row" x1={PAD.left} y1={NONE_ROW} x2={W - PAD.right} y2={NONE_ROW} />
            <text x={PAD.left - 4} y={NONE_ROW + 3} text-anchor="end">
              none
            </text>
          </>
        )}
        <text x={PAD.left + X_INSET} y={AXIS_LABELS}>
          {usd(Math.min(...costs))}
        </text>
        <text x={W - PAD.right} y={AXIS_LABELS} text-anchor="end">
          {usd(Math.max(...costs))} cost
        </text>
      </g>
      {line !== '' && <polyline class="frontier-line" points={line} />}
      {points.map((p) => (
        <Point key={p.name} p={p} x={x(p.costUSD)} series={series(p.name)} />
      ))}
    </svg>
  );
}

function YourSettingsLine({ replay }: { replay: ReplayView }) {
  const y = replay.yourSettings;
  const changed = y.changed.map((k) => `splitpoint.${k}`).join(', ');
  if (y.state === 'default')
    return (
      <p class="muted" data-field="your-settings">
        Your compaction settings are the shipped defaults: splitpoint-default is yours.
      </p>
    );
  if (y.state === 'replayed')
    return (
      <p class="muted" data-field="your-settings">
        your-settings: your settings ({changed} changed; the rest at the defaults).
      </p>
    );
  if (y.state === 'invalid')
    return (
      <p class="replay-stopped" data-field="your-settings">
        Your settings ({changed} changed) were not replayed: {y.error}
      </p>
    );
  return null;
}

/** The frontier chart, its points said in words, and what "your settings" are. */
export function ReplayFrontier({ replay }: { replay: ReplayView }) {
  if (replay.frontier.length === 0) return null;
  return (
    <>
      <h3>Cost against probe answerable rate</h3>
      <FrontierChart replay={replay} />
      <YourSettingsLine replay={replay} />
      <ul class="frontier-list">
        {replay.frontier.map((p) => (
          <li key={p.name} data-config={p.name}>
            {frontierPointText(p)}
          </li>
        ))}
      </ul>
    </>
  );
}
