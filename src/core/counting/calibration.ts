// Calibrating local token estimates against what the API reports.
//
// The local encoders count o200k_base tokens; Claude's tokenizer differs, and every request carries a
// system prompt and tool definitions that a recording does not show (and that we count only
// approximately). After each request the API reports the true input size. CalibratedCounter learns
//   reported ≈ prefix + factor × raw
// per model (see InputFit for the fit and its rules; the same model estimates recorded sessions'
// calls in recordedCalls.ts) and applies it:
//  - estimate(raw) is the calibrated size of a whole request whose raw count is `raw`
//    (messages + whatever system prompt and tools were counted): Math.round(prefix + factor × raw);
//  - countMessage / countMessages scale raw counts by the factor only (a message's marginal cost),
//    rounding the scaled total once;
//  - observations whose estimate is below minEstimatedTokens are ignored (observe returns false).
import type { Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';
import {
  badFitStateField,
  CalibrationConfigError,
  DEFAULT_INPUT_FIT,
  InputFit,
  type InputFitOptions,
  type InputFitState,
} from './inputFit';
import type { MessageTokenCounter } from './tokens';

export { CalibrationConfigError };

export interface CalibrationOptions extends InputFitOptions {
  /** Observations whose estimate is below this are too small to be informative. Default 0 (all). */
  minEstimatedTokens?: number;
  /** The model this calibration belongs to, recorded in toJSON() so a stored snapshot says so. */
  model?: string;
}

/** What toJSON() writes: enough to resume calibration for one model after a restart. */
export interface CalibrationSnapshot {
  version: 2;
  /** The fitted prefix and factor when saved (informative: they are recomputed from `fit`). */
  prefix: number;
  factor: number;
  observations: number;
  fit: InputFitState;
  model?: string;
}

export const CALIBRATION_SNAPSHOT_VERSION = 2;

export const DEFAULT_CALIBRATION = { ...DEFAULT_INPUT_FIT, minEstimatedTokens: 0 } as const;

/** A stored calibration snapshot that cannot be restored (corrupt, or from another version). */
export class CalibrationSnapshotError extends SplitpointError {
  constructor(
    detail: string,
    /** The snapshot's version when it is a well-formed snapshot of another version (e.g. 1, factor only). */
    readonly version?: number,
  ) {
    super(`calibration snapshot is not usable: ${detail}`);
    this.name = 'CalibrationSnapshotError';
  }
}

/** The usage fields of an Anthropic Messages API response that measure input. */
export interface InputUsage {
  input_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * The whole input size of a request. With prompt caching, `input_tokens` counts only the uncached
 * part; the cached and cache-written parts are reported separately and must be added back before
 * comparing with a local estimate of the whole request.
 */
export function totalInputTokens(usage: InputUsage): number {
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** A MessageTokenCounter calibrated by reported usage: reported ≈ prefix + factor × raw. */
export class CalibratedCounter implements MessageTokenCounter {
  private fit: InputFit;
  private readonly minEstimatedTokens: number;
  private readonly fitOptions: InputFitOptions;
  readonly model: string | undefined;

  constructor(
    readonly inner: MessageTokenCounter,
    options: CalibrationOptions = {},
  ) {
    const { minEstimatedTokens, model, ...fitOptions } = options;
    this.minEstimatedTokens = minEstimatedTokens ?? DEFAULT_CALIBRATION.minEstimatedTokens;
    if (!(this.minEstimatedTokens >= 0 && Number.isFinite(this.minEstimatedTokens))) {
      throw new CalibrationConfigError('minEstimatedTokens', `must be a non-negative number, got ${this.minEstimatedTokens}`);
    }
    this.fitOptions = fitOptions;
    this.fit = new InputFit(fitOptions);
    this.model = model;
  }

  /** Restores a counter from toJSON() output (version 2); throws CalibrationSnapshotError otherwise. */
  static fromJSON(inner: MessageTokenCounter, snapshot: unknown, options: CalibrationOptions = {}): CalibratedCounter {
    const valid = parseSnapshot(snapshot);
    const counter = new CalibratedCounter(inner, { ...options, model: options.model ?? valid.model });
    counter.fit = InputFit.fromState(valid.fit, counter.fitOptions);
    return counter;
  }

  /** The multiplier applied to raw counts (the default factor until observations spread). */
  get factor(): number {
    return this.fit.factor;
  }

  /** Tokens every request carries beyond factor × its raw count (unseen system prompt, tools, framing). */
  get prefix(): number {
    return this.fit.prefix;
  }

  /** How many observations have been accepted so far (including restored ones). */
  get observations(): number {
    return this.fit.observations;
  }

  /**
   * Feeds one request's outcome. `estimatedInputTokens` must be the raw (uncalibrated) local
   * estimate of the whole request, the same quantity estimate() takes (messages plus whatever system
   * prompt and tool definitions were counted); `reportedInputTokens` the API's total input (see
   * totalInputTokens) or a count_tokens answer. Returns whether the observation was used.
   */
  observe(estimatedInputTokens: number, reportedInputTokens: number): boolean {
    if (!(estimatedInputTokens >= this.minEstimatedTokens)) return false;
    return this.fit.observe(estimatedInputTokens, reportedInputTokens);
  }

  /** The calibrated size of a whole request whose raw count is `rawInputTokens`. */
  estimate(rawInputTokens: number): number {
    return this.fit.estimate(rawInputTokens);
  }

  /** Forgets every observation. */
  reset(): void {
    this.fit.reset();
  }

  countMessage(message: Message): number {
    return Math.round(this.inner.countMessage(message) * this.fit.factor);
  }

  countMessages(messages: readonly Message[]): number {
    return Math.round(this.inner.countMessages(messages) * this.fit.factor);
  }

  /** The uncalibrated count, which is what observe() and estimate() take. */
  rawCountMessages(messages: readonly Message[]): number {
    return this.inner.countMessages(messages);
  }

  toJSON(): CalibrationSnapshot {
    const snapshot: CalibrationSnapshot = {
      version: CALIBRATION_SNAPSHOT_VERSION,
      prefix: this.fit.prefix,
      factor: this.fit.factor,
      observations: this.fit.observations,
      fit: this.fit.snapshot(),
    };
    if (this.model !== undefined) snapshot.model = this.model;
    return snapshot;
  }
}

function parseSnapshot(value: unknown): { fit: InputFitState; model: string | undefined } {
  if (typeof value !== 'object' || value === null) throw new CalibrationSnapshotError('expected an object');
  const v = value as Record<string, unknown>;
  if (v.version === 1) throw new CalibrationSnapshotError('version 1 (a factor without a prefix) is an older format', 1);
  if (v.version !== CALIBRATION_SNAPSHOT_VERSION) throw new CalibrationSnapshotError(`unsupported version ${JSON.stringify(v.version)}`);
  if (typeof v.fit !== 'object' || v.fit === null) throw new CalibrationSnapshotError('fit must be an object');
  const fit = v.fit as Record<string, unknown>;
  const bad = badFitStateField(fit);
  if (bad !== undefined) throw new CalibrationSnapshotError(`fit.${bad} must be a non-negative number, got ${JSON.stringify(fit[bad])}`);
  if (v.model !== undefined && typeof v.model !== 'string') throw new CalibrationSnapshotError('model must be a string');
  return { fit: fit as unknown as InputFitState, model: v.model as string | undefined };
}
