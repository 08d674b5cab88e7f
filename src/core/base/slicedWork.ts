// Work written as a generator that yields between units of work, so one code path runs straight through
// (runSteps) or in slices of about `sliceMs` with the event loop getting a turn (setImmediate) between
// them (runStepsSliced), on a thread that must not wait. SlicedWork is one such run that a synchronous
// caller can finish() at once when it needs the result now, so no one ever reads a half-done state.

/** Work that yields between units and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps to the end, synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs the steps in slices of about `sliceMs`, giving the event loop a turn (setImmediate) between slices. */
export async function runStepsSliced<T>(steps: Steps<T>, sliceMs = 8): Promise<T> {
  let start = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - start >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      start = performance.now();
    }
  }
}

export class SlicedWork {
  private current: Steps<void> | null = null;

  /** True while a run is under way (neither done nor finished). */
  get running(): boolean {
    return this.current !== null;
  }

  /** Runs `steps` in slices (finishing any run under way first); resolves when they are done, here or by finish(). */
  async run(steps: Steps<void>, sliceMs = 8): Promise<void> {
    this.finish();
    this.current = steps;
    try {
      await runStepsSliced(this.whileCurrent(steps), sliceMs);
    } finally {
      if (this.current === steps) this.current = null;
    }
  }

  /** Runs what is left of the run under way, synchronously. */
  finish(): void {
    const steps = this.current;
    if (!steps) return;
    this.current = null;
    runSteps(steps);
  }

  /** `steps` one at a time for as long as they are the run under way (finish() takes them over). */
  private *whileCurrent(steps: Steps<void>): Steps<void> {
    while (this.current === steps && !steps.next().done) yield;
  }
}
