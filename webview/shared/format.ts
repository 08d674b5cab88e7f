// Small formatting helpers shared by the webviews.

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** 152340 -> "152,340" (in the user's locale). */
export function formatInt(n: number): string {
  return Number.isFinite(n) ? integer.format(n) : '—';
}

/** A ratio as a whole percentage, clamped to 0..999. */
export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio)) return '—';
  return `${Math.max(0, Math.min(999, Math.round(ratio * 100)))}%`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** A string safe to use inside an element id, derived from an arbitrary host id. */
export function domId(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
