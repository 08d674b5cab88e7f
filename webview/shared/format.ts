// Display helpers shared by both webviews: numbers, percentages, durations, times and ids. One locale
// for all of them: the views' words are English, and the host writes the figures in its text (plan
// notes, replay stops, status lines) in en-US too, so a figure the view formats reads the same as one
// the host wrote beside it. No DOM.

/** The locale of every figure and time the webviews show. */
export const LOCALE = 'en-US';

const INTEGER = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });

/** 152340 -> "152,340"; not a number -> "—". */
export function formatInt(n: number): string {
  return Number.isFinite(n) ? INTEGER.format(Math.round(n)) : '—';
}

/** "12,400 tok". */
export function formatTokens(n: number): string {
  return `${formatInt(n)} tok`;
}

/** A ratio as a whole percentage, clamped to 0..999: 0.424 -> "42%". */
export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio)) return '—';
  return `${Math.max(0, Math.min(999, Math.round(ratio * 100)))}%`;
}

/** Share of `whole` as "42%" (one decimal under 10%). */
export function formatShare(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (part / whole) * 100;
  return `${Math.abs(p) < 10 && p !== 0 ? p.toFixed(1) : Math.round(p)}%`;
}

/** Change from `before` to `after` as "−62%" / "+3%" / "±0%". */
export function formatDelta(before: number, after: number): string {
  if (before <= 0) return '0%';
  const p = Math.round(((after - before) / before) * 100);
  return `${p > 0 ? '+' : p < 0 ? '−' : '±'}${Math.abs(p)}%`;
}

/** "$0.0144": four decimals under a dollar (a request's input costs cents), else two. */
export function formatUSD(x: number): string {
  return `${x < 0 ? '-' : ''}$${Math.abs(x).toFixed(Math.abs(x) >= 1 ? 2 : 4)}`;
}

/** A duration: "3.2 ms", "1,250 ms". */
export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${formatInt(ms)} ms`;
}

/** A time (epoch milliseconds) as date and time; an invalid one as the number it was. */
export function formatTime(at: number): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toLocaleString(LOCALE);
}

/** "1 message", "3 messages" (the count formatted). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** A string safe to use inside an element id, derived from an arbitrary host id. */
export function domId(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
