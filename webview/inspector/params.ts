// Parameter inputs: what the user typed, checked against each parameter's bounds (the host checks
// again, including cross-parameter rules, and answers a bad request with planError).
import type { StrategyParamView, StrategyView } from '../../src/protocol';

/** The strategy "Split here" plans with (src/core/strategies/splitAt.ts). */
export const SPLIT_AT = 'split-at';

export type ParamInputs = Record<string, Record<string, string>>;

export interface ParamCheck {
  values: Record<string, number>;
  /** Problem per parameter name (absent when the value is fine). */
  errors: Record<string, string>;
  ok: boolean;
}

/** The text shown in a parameter's input: what was typed, else the session's value. */
export function inputText(inputs: ParamInputs, strategy: string, p: StrategyParamView): string {
  return inputs[strategy]?.[p.name] ?? String(p.value);
}

export function checkParam(p: StrategyParamView, raw: string): { value: number } | { error: string } {
  const text = raw.trim();
  if (text === '') return { error: 'Enter a number.' };
  const value = Number(text);
  if (!Number.isFinite(value)) return { error: 'Enter a number.' };
  if (p.integer && !Number.isInteger(value)) return { error: 'Must be a whole number.' };
  if (value < p.min) return { error: `Must be at least ${p.min}.` };
  if (value > p.max) return { error: `Must be at most ${p.max}.` };
  return { value };
}

export function checkParams(inputs: ParamInputs, s: StrategyView): ParamCheck {
  const values: Record<string, number> = {};
  const errors: Record<string, string> = {};
  for (const p of s.params) {
    const r = checkParam(p, inputText(inputs, s.name, p));
    if ('error' in r) errors[p.name] = r.error;
    else values[p.name] = r.value;
  }
  return { values, errors, ok: Object.keys(errors).length === 0 };
}

/** Is any input of this strategy different from the session's value? */
export function isEdited(inputs: ParamInputs, s: StrategyView): boolean {
  const mine = inputs[s.name];
  if (!mine) return false;
  return s.params.some((p) => mine[p.name] !== undefined && mine[p.name].trim() !== String(p.value));
}
