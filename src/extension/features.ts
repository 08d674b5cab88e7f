// Activation, feature by feature: each feature is built inside its own guard, so one that throws
// while activating is reported (the output channel with the stack, an error notification naming it)
// and the others still activate. A feature that needs one that failed gets `undefined` and uses
// `unavailable(name)` for what that feature would have done: the user's click then says why nothing
// happens instead of doing nothing. No `vscode` import (unit-tested in plain Node).
import { errorMessage } from '../core';
import type { IDisposable } from './lifecycle';
import type { FailureSink } from './router';

/** Where built features go (VS Code's `context.subscriptions`: it disposes them with the window). */
export interface FeatureOwner {
  push(...features: IDisposable[]): unknown;
}

/** What a feature that did not start is missing: an Error whose message names the feature. */
export class FeatureUnavailableError extends Error {
  constructor(readonly feature: string) {
    super(`${feature} is not available: it failed to start when Splitpoint activated (see the Splitpoint output).`);
    this.name = 'FeatureUnavailableError';
  }
}

/** Stands in for an action of a feature that did not start: it rejects with FeatureUnavailableError. */
export function unavailable(feature: string): () => Promise<never> {
  return () => Promise.reject(new FeatureUnavailableError(feature));
}

export class FeatureActivation {
  private readonly failures: string[] = [];

  constructor(
    private readonly owner: FeatureOwner,
    private readonly sink: FailureSink,
  ) {}

  /** The names of the features that threw while activating, in order. */
  get failed(): readonly string[] {
    return this.failures;
  }

  /**
   * Builds one feature and hands it to the owner. If `create` throws, the failure is reported naming
   * `name` and the result is undefined: activation goes on with the next feature.
   */
  activate<T extends IDisposable>(name: string, create: () => T): T | undefined {
    let feature: T;
    try {
      feature = create();
    } catch (e) {
      this.failures.push(name);
      this.report(name, e);
      return undefined;
    }
    this.owner.push(feature);
    return feature;
  }

  private report(name: string, error: unknown): void {
    const detail = error instanceof Error && error.stack ? error.stack : errorMessage(error);
    try {
      this.sink.error(`${name} failed to activate: ${detail}`);
      this.sink.showError(
        `Splitpoint: ${name} failed to start (${errorMessage(error)}). The rest of Splitpoint works; see the Splitpoint output.`,
      );
    } catch {
      // The sink itself failed: activation still goes on.
    }
  }
}
