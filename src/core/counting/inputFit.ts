// The calibration model: what a request really costs, from what we can count locally.
//
//   reported input tokens ≈ prefix + factor × raw
//
// `raw` is the local (o200k) count of what we can see of the request; `prefix` is what every request
// carries that the count does not see or sees wrongly (a recorded session's unseen system prompt and
// tool definitions, 15-79K tokens in real Claude Code sessions; the request framing); `factor` is how
// the model's tokenizer differs from o200k on the visible part.
//
// Fitted from observations (raw, reported) by least squares with exponentially decaying weights, so
// recent calls count most (a session's system prompt and tools change rarely, but they do change).
// Rules, all deterministic:
//  - no observation: prefix 0, factor `defaultFactor` (the estimate is the scaled raw count);
//  - one observation, or observations whose raw counts barely differ: the factor is `defaultFactor`
//    and the prefix absorbs the rest (reported − factor × raw), so the estimate passes through the
//    weighted mean observation;
//  - otherwise the weighted least-squares line; its factor is clamped to [minFactor, maxFactor] and
//    the prefix recomputed through the weighted mean;
//  - the prefix is clamped to [0, maxPrefix]; a negative prefix (reported below factor × raw) lowers
//    the factor instead, so that the line still passes through the mean (clamped as above);
//  - observations with a non-finite or non-positive number, or one above MAX_OBSERVED_TOKENS, are
//    ignored (observe returns false).
import { SplitpointError } from '../base/errors';

export interface InputFitOptions {
  /** Lowest factor allowed. Default 0.5. */
  minFactor?: number;
  /** Highest factor allowed. Default 3. */
  maxFactor?: number;
  /** Highest prefix allowed, in tokens. Default 150,000. */
  maxPrefix?: number;
  /** The factor before any spread in the observations says otherwise. Default 1. */
  defaultFactor?: number;
  /** Weight kept by older observations at each new one, in (0, 1]. Default 0.85. */
  decay?: number;
  /**
   * Raw counts must spread by at least this fraction of their mean (standard deviation) before the
   * factor is fitted rather than taken as `defaultFactor`. Default 0.05.
   */
  minSpread?: number;
}

export const DEFAULT_INPUT_FIT = {
  minFactor: 0.5,
  maxFactor: 3,
  maxPrefix: 150_000,
  defaultFactor: 1,
  decay: 0.85,
  minSpread: 0.05,
} as const;

/** No request is this large; a larger number is corrupt (and would overflow the sums). */
export const MAX_OBSERVED_TOKENS = 1e9;

/** The sufficient statistics of the weighted fit; what a snapshot stores. */
export interface InputFitState {
  observations: number;
  weight: number;
  sumRaw: number;
  sumReported: number;
  sumRawSquared: number;
  sumRawReported: number;
}

/** Bad calibration options: names the option and what was wrong. */
export class CalibrationConfigError extends SplitpointError {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`calibration: ${field} ${detail}`);
    this.name = 'CalibrationConfigError';
  }
}

const EMPTY_STATE: InputFitState = { observations: 0, weight: 0, sumRaw: 0, sumReported: 0, sumRawSquared: 0, sumRawReported: 0 };

/** reported ≈ prefix + factor × raw, fitted from (raw, reported) observations. */
export class InputFit {
  private state: InputFitState = { ...EMPTY_STATE };
  private fitted: { prefix: number; factor: number };
  private readonly o: Required<InputFitOptions>;

  constructor(options: InputFitOptions = {}) {
    this.o = { ...DEFAULT_INPUT_FIT, ...stripUndefined(options) };
    validate(this.o);
    this.fitted = { prefix: 0, factor: this.o.defaultFactor };
  }

  /** A fit resumed from `state()` output (validated by the caller). */
  static fromState(state: InputFitState, options: InputFitOptions = {}): InputFit {
    const fit = new InputFit(options);
    fit.state = { ...state };
    fit.fitted = fit.solve();
    return fit;
  }

  get prefix(): number {
    return this.fitted.prefix;
  }

  get factor(): number {
    return this.fitted.factor;
  }

  get observations(): number {
    return this.state.observations;
  }

  /** The estimated reported size of a request whose raw count is `raw`. */
  estimate(raw: number): number {
    return Math.round(this.fitted.prefix + this.fitted.factor * raw);
  }

  /** Feeds one observation; returns whether it was used. */
  observe(raw: number, reported: number): boolean {
    if (!isPositiveFinite(raw) || !isPositiveFinite(reported)) return false;
    if (raw > MAX_OBSERVED_TOKENS || reported > MAX_OBSERVED_TOKENS) return false;
    const s = this.state;
    const d = this.o.decay;
    this.state = {
      observations: s.observations + 1,
      weight: s.weight * d + 1,
      sumRaw: s.sumRaw * d + raw,
      sumReported: s.sumReported * d + reported,
      sumRawSquared: s.sumRawSquared * d + raw * raw,
      sumRawReported: s.sumRawReported * d + raw * reported,
    };
    this.fitted = this.solve();
    return true;
  }

  /** Forgets every observation. */
  reset(): void {
    this.state = { ...EMPTY_STATE };
    this.fitted = { prefix: 0, factor: this.o.defaultFactor };
  }

  /** The statistics to store; fromState() resumes from them. */
  snapshot(): InputFitState {
    return { ...this.state };
  }

  private solve(): { prefix: number; factor: number } {
    const s = this.state;
    if (s.observations === 0 || s.weight <= 0) return { prefix: 0, factor: this.o.defaultFactor };
    const meanRaw = s.sumRaw / s.weight;
    const meanReported = s.sumReported / s.weight;
    const variance = Math.max(0, s.sumRawSquared / s.weight - meanRaw * meanRaw);
    const covariance = s.sumRawReported / s.weight - meanRaw * meanReported;
    const spread = Math.sqrt(variance);
    let factor = spread >= this.o.minSpread * meanRaw && variance > 0 ? covariance / variance : this.o.defaultFactor;
    factor = clamp(factor, this.o.minFactor, this.o.maxFactor);
    let prefix = meanReported - factor * meanRaw;
    if (prefix < 0) {
      // Reported below factor × raw: no unseen prefix; the factor is the mean ratio.
      factor = clamp(meanReported / meanRaw, this.o.minFactor, this.o.maxFactor);
      prefix = Math.max(0, meanReported - factor * meanRaw);
    }
    return { prefix: Math.min(prefix, this.o.maxPrefix), factor };
  }
}

/** Whether `value` is a usable InputFitState; returns the name of the first bad field, or undefined. */
export function badFitStateField(value: Record<string, unknown>): string | undefined {
  const fields: (keyof InputFitState)[] = ['observations', 'weight', 'sumRaw', 'sumReported', 'sumRawSquared', 'sumRawReported'];
  for (const f of fields) {
    const n = value[f];
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return f;
  }
  if (!Number.isInteger(value.observations)) return 'observations';
  return undefined;
}

function validate(o: Required<InputFitOptions>): void {
  if (!isPositiveFinite(o.minFactor)) throw new CalibrationConfigError('minFactor', `must be a positive number, got ${o.minFactor}`);
  if (!isPositiveFinite(o.maxFactor)) throw new CalibrationConfigError('maxFactor', `must be a positive number, got ${o.maxFactor}`);
  if (o.minFactor > o.maxFactor)
    throw new CalibrationConfigError('minFactor', `must not exceed maxFactor (${o.minFactor} > ${o.maxFactor})`);
  if (!(o.maxPrefix >= 0 && Number.isFinite(o.maxPrefix)))
    throw new CalibrationConfigError('maxPrefix', `must be a non-negative number, got ${o.maxPrefix}`);
  if (!(o.defaultFactor >= o.minFactor && o.defaultFactor <= o.maxFactor)) {
    throw new CalibrationConfigError('defaultFactor', `must be in [minFactor, maxFactor], got ${o.defaultFactor}`);
  }
  if (!(o.decay > 0 && o.decay <= 1)) throw new CalibrationConfigError('decay', `must be in (0, 1], got ${o.decay}`);
  if (!(o.minSpread >= 0 && Number.isFinite(o.minSpread)))
    throw new CalibrationConfigError('minSpread', `must be a non-negative number, got ${o.minSpread}`);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function isPositiveFinite(n: number): boolean {
  return typeof n === 'number' && Number.isFinite(n) && n > 0;
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, n));
}
