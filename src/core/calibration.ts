// Calibrating local token estimates against what the API reports.
//
// The local encoders count o200k_base tokens; Claude's tokenizer differs, and the request carries
// framing we only approximate. After each request the API reports the true input size, so the
// ratio reported / estimated is known exactly for that request. CalibratedCounter keeps a smoothed
// ratio (the factor) and scales every local count by it.
//
// Rules, all deterministic:
//  - the first accepted observation sets the factor to its ratio (clamped): one real measurement
//    beats the default guess of 1;
//  - every later one moves the factor by `smoothing` of the way toward the new ratio (an
//    exponential moving average), then clamps it to [minFactor, maxFactor];
//  - observations with a non-finite or non-positive number, or an estimate below
//    minEstimatedTokens, are ignored (observe returns false);
//  - counts are Math.round(raw * factor); countMessages rounds the scaled total once, so it can
//    differ by rounding from the sum of countMessage over the same messages.
import type { Message } from './conversation';
import { SplitpointError } from './errors';
import type { MessageTokenCounter } from './tokens';

export interface CalibrationOptions {
  /** Weight of each new observation in the moving average, in (0, 1]. Default 0.3. */
  smoothing?: number;
  /** Lowest factor allowed. Default 0.5. */
  minFactor?: number;
  /** Highest factor allowed. Default 2.5. */
  maxFactor?: number;
  /** Observations whose estimate is below this are too small to be informative. Default 0 (all). */
  minEstimatedTokens?: number;
  /** The model this calibration belongs to, recorded in toJSON() so a stored snapshot says so. */
  model?: string;
}

/** What toJSON() writes: enough to resume calibration for one model after a restart. */
export interface CalibrationSnapshot {
  version: 1;
  factor: number;
  observations: number;
  model?: string;
}

export const DEFAULT_CALIBRATION = {
  smoothing: 0.3,
  minFactor: 0.5,
  maxFactor: 2.5,
  minEstimatedTokens: 0,
} as const;

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

/** A stored calibration snapshot that cannot be restored (corrupt, or from a future version). */
export class CalibrationSnapshotError extends SplitpointError {
  constructor(detail: string) {
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

/** A MessageTokenCounter whose counts are scaled by a factor learned from reported usage. */
export class CalibratedCounter implements MessageTokenCounter {
  private currentFactor = 1;
  private observationCount = 0;
  private readonly smoothing: number;
  private readonly minFactor: number;
  private readonly maxFactor: number;
  private readonly minEstimatedTokens: number;
  readonly model: string | undefined;

  constructor(
    readonly inner: MessageTokenCounter,
    options: CalibrationOptions = {},
  ) {
    this.smoothing = options.smoothing ?? DEFAULT_CALIBRATION.smoothing;
    this.minFactor = options.minFactor ?? DEFAULT_CALIBRATION.minFactor;
    this.maxFactor = options.maxFactor ?? DEFAULT_CALIBRATION.maxFactor;
    this.minEstimatedTokens = options.minEstimatedTokens ?? DEFAULT_CALIBRATION.minEstimatedTokens;
    this.model = options.model;
    validateOptions(this.smoothing, this.minFactor, this.maxFactor, this.minEstimatedTokens);
    this.currentFactor = clamp(1, this.minFactor, this.maxFactor);
  }

  /** Restores a counter from toJSON() output; the factor is re-clamped to this counter's range. */
  static fromJSON(inner: MessageTokenCounter, snapshot: unknown, options: CalibrationOptions = {}): CalibratedCounter {
    const valid = parseSnapshot(snapshot);
    const counter = new CalibratedCounter(inner, { ...options, model: options.model ?? valid.model });
    counter.currentFactor = clamp(valid.factor, counter.minFactor, counter.maxFactor);
    counter.observationCount = valid.observations;
    return counter;
  }

  /** The multiplier applied to raw counts (1 until the first observation). */
  get factor(): number {
    return this.currentFactor;
  }

  /** How many observations have been accepted so far (including restored ones). */
  get observations(): number {
    return this.observationCount;
  }

  /**
   * Feeds one request's outcome. `estimatedInputTokens` must be the raw (uncalibrated) local
   * estimate of the whole request, the same quantity rawCount* returns plus whatever system prompt
   * and tool definitions were estimated; `reportedInputTokens` the API's total input (see
   * totalInputTokens). Returns whether the observation was used.
   */
  observe(estimatedInputTokens: number, reportedInputTokens: number): boolean {
    if (!isPositiveFinite(estimatedInputTokens) || !isPositiveFinite(reportedInputTokens)) return false;
    if (estimatedInputTokens < this.minEstimatedTokens) return false;
    const ratio = clamp(reportedInputTokens / estimatedInputTokens, this.minFactor, this.maxFactor);
    const next = this.observationCount === 0 ? ratio : this.currentFactor + this.smoothing * (ratio - this.currentFactor);
    this.currentFactor = clamp(next, this.minFactor, this.maxFactor);
    this.observationCount += 1;
    return true;
  }

  /** Forgets every observation: the factor returns to 1. */
  reset(): void {
    this.currentFactor = clamp(1, this.minFactor, this.maxFactor);
    this.observationCount = 0;
  }

  countMessage(message: Message): number {
    return Math.round(this.inner.countMessage(message) * this.currentFactor);
  }

  countMessages(messages: readonly Message[]): number {
    return Math.round(this.inner.countMessages(messages) * this.currentFactor);
  }

  /** The uncalibrated count, which is what observe() expects as its estimate. */
  rawCountMessages(messages: readonly Message[]): number {
    return this.inner.countMessages(messages);
  }

  toJSON(): CalibrationSnapshot {
    const snapshot: CalibrationSnapshot = { version: 1, factor: this.currentFactor, observations: this.observationCount };
    if (this.model !== undefined) snapshot.model = this.model;
    return snapshot;
  }
}

function validateOptions(smoothing: number, minFactor: number, maxFactor: number, minEstimatedTokens: number): void {
  if (!(smoothing > 0 && smoothing <= 1)) throw new CalibrationConfigError('smoothing', `must be in (0, 1], got ${smoothing}`);
  if (!isPositiveFinite(minFactor)) throw new CalibrationConfigError('minFactor', `must be a positive number, got ${minFactor}`);
  if (!isPositiveFinite(maxFactor)) throw new CalibrationConfigError('maxFactor', `must be a positive number, got ${maxFactor}`);
  if (minFactor > maxFactor) throw new CalibrationConfigError('minFactor', `must not exceed maxFactor (${minFactor} > ${maxFactor})`);
  if (!(minEstimatedTokens >= 0 && Number.isFinite(minEstimatedTokens))) {
    throw new CalibrationConfigError('minEstimatedTokens', `must be a non-negative number, got ${minEstimatedTokens}`);
  }
}

function parseSnapshot(value: unknown): CalibrationSnapshot {
  if (typeof value !== 'object' || value === null) throw new CalibrationSnapshotError('expected an object');
  const v = value as Record<string, unknown>;
  if (v.version !== 1) throw new CalibrationSnapshotError(`unsupported version ${JSON.stringify(v.version)}`);
  if (typeof v.factor !== 'number' || !isPositiveFinite(v.factor))
    throw new CalibrationSnapshotError(`factor must be a positive number, got ${JSON.stringify(v.factor)}`);
  const observations = v.observations;
  if (typeof observations !== 'number' || !Number.isInteger(observations) || observations < 0) {
    throw new CalibrationSnapshotError(`observations must be a non-negative integer, got ${JSON.stringify(observations)}`);
  }
  if (v.model !== undefined && typeof v.model !== 'string') throw new CalibrationSnapshotError('model must be a string');
  return { version: 1, factor: v.factor, observations, model: v.model as string | undefined };
}

function isPositiveFinite(n: number): boolean {
  return typeof n === 'number' && Number.isFinite(n) && n > 0;
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, n));
}
