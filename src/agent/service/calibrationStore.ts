// The token calibration per model, kept across restarts: the fit of the API's reported input tokens
// as a prefix plus a factor on our o200k estimate (small requests are too noisy to learn from). One
// JSON file holds an object keyed by model name, each value a CalibratedCounter snapshot. Entries in
// the old format (version 1: a factor without a prefix) are ignored with a log line and replaced on
// the next save.
import { readFileSync } from 'node:fs';
import { CalibratedCounter, CalibrationSnapshotError, errorMessage, writeFileAtomic, type MessageTokenCounter } from '../../core';

/** Requests smaller than this (estimated tokens) do not move the factor. */
export const MIN_CALIBRATION_TOKENS = 1_000;

export interface CalibrationStoreLog {
  warn(message: string): void;
}

export class CalibrationStore {
  constructor(
    private readonly file: string,
    private readonly counter: MessageTokenCounter,
    private readonly log: CalibrationStoreLog,
  ) {}

  /** The saved calibration for `model`, or a fresh one (no file, no entry, or an unreadable entry). */
  load(model: string): CalibratedCounter {
    const options = { model, minEstimatedTokens: MIN_CALIBRATION_TOKENS };
    const snapshot = this.readAll()[model];
    if (snapshot === undefined) return new CalibratedCounter(this.counter, options);
    try {
      return CalibratedCounter.fromJSON(this.counter, snapshot, options);
    } catch (e) {
      if (e instanceof CalibrationSnapshotError && e.version === 1) {
        this.log.warn(`The saved calibration for ${model} is in the old format (a factor without a prefix); starting afresh.`);
      } else {
        this.log.warn(`Ignoring the saved calibration for ${model}: ${errorMessage(e)}`);
      }
      return new CalibratedCounter(this.counter, options);
    }
  }

  /** Write `calibration` as the entry for `model`, keeping the other models' entries. Never throws. */
  save(model: string, calibration: CalibratedCounter): void {
    try {
      const all = this.readAll();
      all[model] = calibration.toJSON();
      writeFileAtomic(this.file, JSON.stringify(all, null, 2));
    } catch (e) {
      this.log.warn(`Could not save the token calibration: ${errorMessage(e)}`);
    }
  }

  private readAll(): Record<string, unknown> {
    try {
      const all = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return typeof all === 'object' && all !== null && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
    } catch {
      // Missing or corrupt: every model starts from the default factor.
      return {};
    }
  }
}
