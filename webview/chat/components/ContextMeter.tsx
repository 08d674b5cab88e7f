// Context window usage: a bar with the auto-compact threshold marked, coloured as usage nears it.
import type { CacheMeter, ContextMeter } from '../../../src/protocol';
import { formatInt, formatPercent, plural } from '../../shared/format';

export type MeterLevel = 'ok' | 'warn' | 'over';

/** 'warn' from 85% of the threshold (of the window when auto-compact is off), 'over' past it. */
export function meterLevel(c: ContextMeter): MeterLevel {
  const limit = c.threshold ?? c.window;
  if (!(limit > 0)) return 'ok';
  const r = c.used / limit;
  return r >= 1 ? 'over' : r >= 0.85 ? 'warn' : 'ok';
}

/** "$0.0123" under a dollar (4 decimals), "$12.34" above. */
export function formatUSD(n: number): string {
  return `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;
}

/** The meter's tooltip about the prompt cache: the last call's split, the session's totals, the cost so far. */
export function cacheTooltip(c: CacheMeter): string {
  const { last, session } = c;
  const caching = c.caching === 'off' ? 'prompt caching off' : `prompt caching ${c.caching}`;
  return [
    `Last call: ${formatInt(last.read)} read from cache · ${formatInt(last.write)} written to cache · ` +
      `${formatInt(last.uncached)} uncached · ${formatInt(last.output)} output (${formatUSD(last.costUSD)})`,
    `This session (${plural(session.calls, 'call')}): ${formatInt(session.read)} read from cache · ${formatInt(session.write)} written to cache · ` +
      `${formatInt(session.uncached)} uncached · ${formatInt(session.output)} output`,
    `Cost so far: ${formatUSD(session.costUSD)} (${caching})`,
  ].join('\n');
}

export function ContextMeterView({ context }: { context: ContextMeter }) {
  const { used, window, threshold } = context;
  const ratio = window > 0 ? used / window : 0;
  const fill = Math.max(0, Math.min(1, ratio));
  const mark = threshold !== null && window > 0 ? Math.max(0, Math.min(1, threshold / window)) : null;
  const level = meterLevel(context);
  const text = window > 0 ? `${formatInt(used)} / ${formatInt(window)} tokens · ${formatPercent(ratio)}` : 'Context: —';
  const thresholdText = mark !== null ? `auto-compact at ${formatPercent(mark)}` : 'auto-compact off';
  const tooltip = context.cache ? cacheTooltip(context.cache) : undefined;
  return (
    <div class={`meter level-${level}`} title={tooltip} data-cache={context.cache ? 'yes' : undefined}>
      <div
        class="meter-bar"
        role="meter"
        aria-label="Context window usage"
        aria-valuemin={0}
        aria-valuemax={Math.max(window, 1)}
        aria-valuenow={Math.min(used, Math.max(window, 1))}
        aria-valuetext={`${text}, ${thresholdText}`}
      >
        <div class="meter-fill" style={{ width: `${(fill * 100).toFixed(2)}%` }} />
        {mark !== null ? (
          <div
            class="meter-threshold"
            style={{ left: `${(mark * 100).toFixed(2)}%` }}
            title={`Auto-compact threshold: ${formatInt(threshold!)} tokens`}
          />
        ) : null}
      </div>
      <div class="meter-label">
        <span class="meter-text">{text}</span>
        <span class="meter-threshold-text">{thresholdText}</span>
      </div>
    </div>
  );
}
