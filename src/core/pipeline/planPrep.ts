// The per-message work every plan repeats over its whole input (each message's count and plan entry,
// the synthetic / real separation, running token sums), done ahead in slices so a plan over a huge
// history (hundreds of thousands of imported messages) does not hold the thread that runs it.
//
// prepSteps builds a PlanPrep for one input and counter as a generator (runSteps: at once;
// runStepsSliced: with the event loop getting a turn between slices). withPlanPrep then runs the ONE
// synchronous planner with that prep active: finalizePlan, separateSynthetics and the counting helpers
// below take their figures from it for exactly that input array and counter, and compute them as
// always for anything else (a pin-free copy, a tail, another counter). The figures are the same either
// way (the counts come from the same counter), so the plan is the same CompactionPlan.
import { kindOf, type Message, type MessageKind } from '../conversation/conversation';
import type { MessageTokenCounter } from '../counting/tokens';
import { IdMap } from '../base/sharded';
import type { Steps } from '../base/slicedWork';

/** What separateSynthetics returns (kept here so the prep does not depend on the strategies). */
export interface PreparedSeparation {
  synthetics: Message[];
  real: Message[];
  realIndex: number[];
}

/** A message's plan entry (plan.ts's PlanEntry; that module builds plans from these). */
export interface PreparedEntry {
  id: string;
  index: number;
  kind: MessageKind;
  tokens: number;
}

export interface PlanPrep {
  readonly input: readonly Message[];
  readonly counter: MessageTokenCounter;
  /** counts[i] = counter.countMessage(input[i]). */
  readonly counts: Float64Array;
  /** The plan entry of input[i] when kept as is or archived (id, index, kind, tokens). */
  readonly entries: readonly PreparedEntry[];
  readonly sep: PreparedSeparation;
  /** prefix[i] = tokens of input[0..i); realPrefix[j] = tokens of sep.real[0..j). */
  readonly prefix: Float64Array;
  readonly realPrefix: Float64Array;
  /** The index in input of the first message with each id, and whether every id is there once. */
  readonly indexOfId: Pick<IdMap<number>, 'get'>;
  readonly uniqueIds: boolean;
  /** realOf[i] = the index of input[i] in sep.real (-1 for a synthetic). */
  readonly realOf: Int32Array;
  /** Every count is an integer: sums taken as prefix differences equal the sums taken message by message. */
  readonly integral: boolean;
}

/** Messages handled between two yields of prepSteps (a few milliseconds at most of counted messages). */
const STEP_MESSAGES = 256;

/** The prep of `input` for `counter`, yielding every STEP_MESSAGES messages. `input` must not change meanwhile. */
export function* prepSteps(input: readonly Message[], counter: MessageTokenCounter): Steps<PlanPrep> {
  const n = input.length;
  const counts = new Float64Array(n);
  const prefix = new Float64Array(n + 1);
  const entries: PreparedEntry[] = new Array<PreparedEntry>(n);
  // Sharded: one Map of 320,000 ids rehashed in one step as it grew.
  const indexOfId = new IdMap<number>();
  let uniqueIds = true;
  const realOf = new Int32Array(n);
  const sep: PreparedSeparation = { synthetics: [], real: [], realIndex: [] };
  const realTokens: number[] = [];
  let integral = true;
  for (let i = 0; i < n; i++) {
    const m = input[i];
    const tokens = counter.countMessage(m);
    counts[i] = tokens;
    if (!Number.isInteger(tokens)) integral = false;
    prefix[i + 1] = prefix[i] + tokens;
    entries[i] = { id: m.id, index: i, kind: kindOf(m), tokens };
    if (!indexOfId.has(m.id)) indexOfId.set(m.id, i);
    else uniqueIds = false;
    if (m.synthetic) {
      sep.synthetics.push(m);
      realOf[i] = -1;
    } else {
      realOf[i] = sep.real.length;
      sep.real.push(m);
      sep.realIndex.push(i);
      realTokens.push(tokens);
    }
    if ((i + 1) % STEP_MESSAGES === 0) yield;
  }
  const realPrefix = new Float64Array(realTokens.length + 1);
  for (let j = 0; j < realTokens.length; j++) realPrefix[j + 1] = realPrefix[j] + realTokens[j];
  return { input, counter, counts, entries, sep, prefix, realPrefix, indexOfId, uniqueIds, realOf, integral };
}

let active: PlanPrep | undefined;

/** Run `fn` (synchronous) with `prep` active; the previous one (if any) is restored after. */
export function withPlanPrep<T>(prep: PlanPrep, fn: () => T): T {
  const previous = active;
  active = prep;
  try {
    return fn();
  } finally {
    active = previous;
  }
}

/** The active prep when it is for exactly this input array (and counter, when given). */
export function prepFor(input: readonly Message[], counter?: MessageTokenCounter): PlanPrep | undefined {
  const p = active;
  if (!p || p.input !== input || p.input.length !== input.length) return undefined;
  if (counter !== undefined && p.counter !== counter) return undefined;
  return p;
}

/** Tokens of `list[start..end)` with `counter`: from the active prep's sums when the run is one of its input or real messages. */
export function countRun(counter: MessageTokenCounter, list: readonly Message[], start = 0, end = list.length): number {
  const fast = end - start > 64 ? preparedRun(counter, list, start, end) : undefined;
  if (fast !== undefined) return fast;
  let total = 0;
  for (let i = start; i < end; i++) total += counter.countMessage(list[i]);
  return total;
}

function preparedRun(counter: MessageTokenCounter, list: readonly Message[], start: number, end: number): number | undefined {
  const p = active;
  if (!p || p.counter !== counter || !p.integral) return undefined;
  const at = p.indexOfId.get(list[start].id);
  if (at === undefined) return undefined;
  const len = end - start;
  if (sameRun(list, start, p.input, at, len)) return p.prefix[at + len] - p.prefix[at];
  const r = p.realOf[at];
  if (r >= 0 && sameRun(list, start, p.sep.real, r, len)) return p.realPrefix[r + len] - p.realPrefix[r];
  return undefined;
}

/** list[start + k] === of[at + k] for every k < len (identity: a few nanoseconds a message). */
function sameRun(list: readonly Message[], start: number, of: readonly Message[], at: number, len: number): boolean {
  if (at + len > of.length) return false;
  for (let k = 0; k < len; k++) if (list[start + k] !== of[at + k]) return false;
  return true;
}

/** `steps` with `prep` active while each of their slices runs (not between slices, when other work may run). */
export function* withPlanPrepSteps<T>(prep: PlanPrep, steps: Steps<T>): Steps<T> {
  for (;;) {
    const r = withPlanPrep(prep, () => steps.next());
    if (r.done) return r.value;
    yield;
  }
}
