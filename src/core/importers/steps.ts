// An import as steps: the importers are generators that yield every few hundred lines, so one code path
// runs straight through (runSteps, for importSession and the CLI) or in slices with the event loop
// between them (runStepsSliced, for the streamed import on the extension host).

/** An import that yields between units of work and returns its result. */
export type ImportSteps<T> = Generator<void, T, void>;

/** Lines an importer handles between two yields. */
export const LINES_PER_STEP = 256;

/** Items a cheap loop over all lines (a map, a filter) handles between two yields. */
export const LOOP_ITEMS_PER_STEP = 4096;

/** Runs the steps to the end, synchronously. */
export function runSteps<T>(steps: ImportSteps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs the steps in slices of about `sliceMs`, giving the event loop a turn (setImmediate) between slices. */
export async function runStepsSliced<T>(steps: ImportSteps<T>, sliceMs = 8): Promise<T> {
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
