// What a test harness started (temp folders, servers, browsers), undone in reverse order. A harness
// whose setup fails halfway runs it before rethrowing, so nothing it started keeps the test file's
// process alive: a failure then ends the file promptly, with the setup's own error.
export class Cleanup {
  private readonly steps: Array<() => unknown> = [];

  /** Registers `undo` for something just started; returns `value` for chaining. */
  add<T>(value: T, undo: (value: T) => unknown): T {
    this.steps.push(() => undo(value));
    return value;
  }

  /** Undoes everything, last started first. Every step runs even if one fails; the first error is rethrown. */
  async run(): Promise<void> {
    let first: unknown;
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }
}

/**
 * Runs a harness's setup with a fresh Cleanup. If setup throws, everything it registered is undone
 * and the setup's error is rethrown (a teardown error is attached as its `cause` only if it had none).
 */
export async function setUp<T>(setup: (cleanup: Cleanup) => Promise<T>): Promise<T> {
  const cleanup = new Cleanup();
  try {
    return await setup(cleanup);
  } catch (e) {
    await cleanup.run().catch((teardownError: unknown) => {
      if (e instanceof Error && e.cause === undefined) e.cause = teardownError;
    });
    throw e;
  }
}
