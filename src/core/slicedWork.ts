// Work done in slices on a thread that must not wait: a generator runs for about `sliceMs`, then the
// event loop gets a turn (setImmediate), and so on. A synchronous caller that needs the result now can
// finish() it, so no one ever reads a half-done state.

export class SlicedWork {
  private current: Generator<void, void, void> | null = null;

  /** Runs `steps` in slices (finishing any run under way first); resolves when they are done, here or by finish(). */
  async run(steps: Generator<void, void, void>, sliceMs = 8): Promise<void> {
    this.finish();
    this.current = steps;
    let start = performance.now();
    while (this.current === steps) {
      if (steps.next().done) {
        this.current = null;
        return;
      }
      if (performance.now() - start >= sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        start = performance.now();
      }
    }
  }

  /** Runs what is left of the run under way, synchronously. */
  finish(): void {
    const steps = this.current;
    if (!steps) return;
    this.current = null;
    while (!steps.next().done);
  }
}
