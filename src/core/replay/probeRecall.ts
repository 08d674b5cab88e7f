// Probe recall in a replay (issue 22): for each compaction a configuration makes, the probes of what it
// archived, scored on its request right after the compaction. A stand-in summary's filler counts for
// nothing (no model wrote it): it is cut out of the summary message, and the ledger the engine appended
// to it still counts. The recording's own summary, used where a configuration summarizes the same
// split, counts. as-recorded: each recorded compaction scored on what the recording kept.
import { textOf, type Message } from '../conversation/conversation';
import type { ImportResult } from '../importers/types';
import { LEDGER_HEADING } from '../ledger/ledgerMerge';
import { generateProbes } from '../probes/generate';
import { recordedCompactionProbes } from '../probes/recorded';
import { scoreProbes } from '../probes/score';
import { STAND_IN_HEAD } from './standInSummarizer';

/** What the JSON says about probeRecall (stand-ins count for nothing). */
export const PROBE_NOTE =
  'probeRecall: the share of probes (artifact, recall, decision, continuation) of what each compaction archived that its ' +
  "request right after the compaction still answers, averaged over the configuration's compactions (null when it made none). " +
  "Stand-in summaries count for nothing: their filler is left out, the ledger appended to them counts; the recording's own " +
  'summary, used where a configuration summarizes the same split, counts. as-recorded: the recorded summaries (or replacement histories).';

/** The message without a stand-in summary's filler (the ledger after it kept). */
export function withoutStandIn(m: Message): Message {
  if (m.synthetic !== 'summary') return m;
  const text = textOf(m);
  const at = text.indexOf(STAND_IN_HEAD);
  if (at < 0) return m;
  const ledger = text.indexOf(LEDGER_HEADING, at);
  return { ...m, content: text.slice(0, at) + (ledger >= 0 ? text.slice(ledger) : '') };
}

/** Running mean of the compactions' answerable rates (compactions with no probes are left out). */
export class ProbeRecallTally {
  private sum = 0;
  private n = 0;

  /** Score one compaction: `archived` (what it archived), `received` (the request right after it), `later` (what follows). */
  add(archived: readonly Message[], received: readonly Message[], later: readonly Message[]): void {
    const probes = generateProbes({ archived, later });
    const { recall } = scoreProbes(probes, received.map(withoutStandIn));
    this.addRate(recall);
  }

  addRate(recall: number | null): void {
    if (recall === null) return;
    this.sum += recall;
    this.n++;
  }

  get value(): number | null {
    return this.n === 0 ? null : this.sum / this.n;
  }
}

/** as-recorded: the mean answerable rate of the recorded compactions on what the recording kept. */
export function recordedProbeRecall(result: Pick<ImportResult, 'messages' | 'compactions'>): number | null {
  const tally = new ProbeRecallTally();
  for (let n = 1; n <= result.compactions.length; n++) tally.addRate(recordedCompactionProbes(result, n).score.recall);
  return tally.value;
}
