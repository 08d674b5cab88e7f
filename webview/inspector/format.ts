// Small display helpers: numbers, percentages, kind labels, times. No DOM.
import type { RowKind } from '../../src/protocol';

const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12400 -> "12,400". */
export function fmtInt(n: number): string {
  return INT.format(Math.round(n));
}

/** "12,400 tok". */
export function fmtTokens(n: number): string {
  return `${fmtInt(n)} tok`;
}

/** Share of `whole` as "42%" (one decimal under 10%). */
export function fmtPercent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (part / whole) * 100;
  return `${Math.abs(p) < 10 && p !== 0 ? p.toFixed(1) : Math.round(p)}%`;
}

/** Change from `before` to `after` as "−62%" / "+3%". */
export function fmtDelta(before: number, after: number): string {
  if (before <= 0) return '0%';
  const p = Math.round(((after - before) / before) * 100);
  return `${p > 0 ? '+' : p < 0 ? '−' : '±'}${Math.abs(p)}%`;
}

export function fmtMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${fmtInt(ms)} ms`;
}

export function fmtTime(at: number): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toLocaleString();
}

export const KIND_LABEL: Record<RowKind, string> = {
  'user-prompt': 'user',
  'assistant-text': 'assistant',
  'tool-call': 'tool call',
  'tool-result': 'tool result',
  thinking: 'thinking',
  summary: 'summary',
  placeholder: 'placeholder',
  artefact: 'artefact',
};

export const KIND_ORDER: RowKind[] = [
  'user-prompt',
  'assistant-text',
  'thinking',
  'tool-call',
  'tool-result',
  'summary',
  'placeholder',
  'artefact',
];

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}
