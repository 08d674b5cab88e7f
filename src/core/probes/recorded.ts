// A recorded compaction's probes: what compaction n of an imported recording archived (the context
// it replaced, without the earlier summary that opened it), scored on what the recording kept: its
// summary (or Codex's replacement history) plus what followed it up to the model's first answer after
// the compaction — the request the model received right after it.
import type { Message } from '../conversation/conversation';
import type { ImportResult } from '../importers/types';
import { SplitpointError } from '../base/errors';
import { generateProbesSteps } from './generate';
import { runSteps, type Steps } from '../base/slicedWork';
import { scoreProbes } from './score';
import type { Probe, ProbeOptions, ProbeScore } from './types';

export class NoSuchCompactionError extends SplitpointError {
  constructor(n: number, count: number) {
    super(
      count === 0
        ? `no recorded compaction ${n}: the recording has no compactions`
        : `no recorded compaction ${n}: the recording has ${count} (1 to ${count})`,
    );
    this.name = 'NoSuchCompactionError';
  }
}

/** The context that followed compaction `k` (0-based): the next compaction's `before`, or the current context. */
function contextAfter(result: Pick<ImportResult, 'messages' | 'compactions'>, k: number): Message[] {
  return k + 1 < result.compactions.length ? result.compactions[k + 1].before : result.messages;
}

/** What compaction `k` (0-based) archived: its `before` without the summary (or replacement history) of the one before it. */
export function recordedArchived(result: Pick<ImportResult, 'compactions'>, k: number): Message[] {
  const previous = new Set(k === 0 ? [] : result.compactions[k - 1].summary.map((m) => m.id));
  return result.compactions[k].before.filter((m) => m.synthetic === undefined && !previous.has(m.id));
}

/**
 * What the model received right after compaction `k`: the summary (or replacement history) and what
 * followed it up to the first assistant message; and the rest of that context (the later conversation).
 */
export function recordedAfter(
  result: Pick<ImportResult, 'messages' | 'compactions'>,
  k: number,
): { received: Message[]; later: Message[] } {
  const c = result.compactions[k];
  const after = contextAfter(result, k);
  // The context after opens with the summary messages (their ids), then what came next.
  const summaryIds = new Set(c.summary.map((m) => m.id));
  let i = 0;
  while (i < after.length && summaryIds.has(after[i].id)) i++;
  let j = i;
  while (j < after.length && after[j].role !== 'assistant') j++;
  return { received: [...c.summary, ...after.slice(i, j)], later: after.slice(i) };
}

/** Compaction n (1-based) of an imported recording: the probes of what it archived, scored on what the recording kept. */
export function recordedCompactionProbes(
  result: Pick<ImportResult, 'messages' | 'compactions'>,
  n: number,
  options: ProbeOptions = {},
): { probes: Probe[]; score: ProbeScore } {
  return runSteps(recordedCompactionProbesSteps(result, n, options));
}

/** recordedCompactionProbes, yielding between slices of the probe generation's passes (generateProbesSteps). */
export function* recordedCompactionProbesSteps(
  result: Pick<ImportResult, 'messages' | 'compactions'>,
  n: number,
  options: ProbeOptions = {},
): Steps<{ probes: Probe[]; score: ProbeScore }> {
  if (!Number.isInteger(n) || n < 1 || n > result.compactions.length) throw new NoSuchCompactionError(n, result.compactions.length);
  const k = n - 1;
  const { received, later } = recordedAfter(result, k);
  const probes = yield* generateProbesSteps({ archived: recordedArchived(result, k), later }, options);
  return { probes, score: scoreProbes(probes, received) };
}
