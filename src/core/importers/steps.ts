// An import as steps (../slicedWork.ts): the importers are generators that yield every few hundred lines,
// so one code path runs straight through (runSteps, for importSession and the CLI) or in slices with the
// event loop between them (runStepsSliced, for the streamed import on the extension host).

import type { Steps } from '../base/slicedWork';

export { runSteps, runStepsSliced } from '../base/slicedWork';

/** An import that yields between units of work and returns its result. */
export type ImportSteps<T> = Steps<T>;

/** Lines an importer handles between two yields. */
export const LINES_PER_STEP = 256;

/** Items a cheap loop over all lines (a map, a filter) handles between two yields. */
export const LOOP_ITEMS_PER_STEP = 4096;
