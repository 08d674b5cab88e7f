// "Check this compaction" (issue 22) on the host: the probes of what a compaction archived (core's
// generateProbes over its transcript and the history it left), priced before anything is sent (the
// divider's offer), asked of the probes model in one request (probeRunner.ts), the result card in the
// chat, and the card's actions on a missed probe: pin its source, add its fact to the ledger, undo.
// splitpoint.probes.afterCompaction: 'always' checks every compaction at once, 'ask' has the divider
// offer it, 'off' leaves the link and the command. Free of `vscode`.
import {
  errorMessage,
  generateProbes,
  PROBE_KINDS,
  restoreTranscript,
  probeQuestionsPrompt,
  type CompactionRecord,
  type Message,
  type Probe,
  type ProbeAnswer,
  type UndoOutcome,
} from '../../core';
import type { ProbeAction, ProbeCheckItem, ProbeCheckOffer, ProbeFollowView, ProbeMissView } from '../../protocol';
import type { HostSettings } from '../../settings/hostSettings';
import type { AgentFactory } from '../loop/agentFactory';
import { MissingApiKeyError } from '../loop/missingApiKeyError';
import { estimateProbeCost, probeModelFor, runProbeRequest } from '../loop/probeRunner';
import type { SessionScope } from './sessionScope';

export interface ProbeCheckDeps {
  current: () => SessionScope;
  settings: () => HostSettings;
  getApiKey: () => Promise<string | undefined>;
  agents: Pick<AgentFactory, 'requestParts'>;
  tokenizer: { countText(text: string): number };
  /** The controller's undo (it marks the divider and says where the history came from). */
  undo: () => UndoOutcome;
  log: { info(message: string): void; warn(message: string): void };
  /** Tests: read a transcript (default: the file, parsed by the importers). */
  readTranscript?: (path: string) => Message[];
}

/** A check's probes and answers, kept for the card's actions (regenerated from the compaction after a reload: same input, same probes). */
interface CheckState {
  compactionId: string;
  probes: Probe[];
}

export class ProbeChecks {
  private readonly checks = new Map<string, CheckState>();
  /** Per session: probes the user pinned or added to the ledger, asked again by the next checks until answered. */
  private readonly followUps = new Map<string, Probe[]>();
  private seq = 0;

  constructor(private readonly deps: ProbeCheckDeps) {}

  /** A compaction happened: its divider gets the check's price, and with 'always' the check runs. */
  compacted(r: CompactionRecord): void {
    if (r.trigger === 'undo') return;
    const mode = this.deps.settings().probes?.afterCompaction ?? 'ask';
    try {
      const offer = this.offer(r.id, mode === 'ask');
      this.deps.current().chatLog.update(r.id, 'compaction', { check: offer });
    } catch (e) {
      this.deps.log.warn(`The probes of compaction ${r.id} could not be priced: ${errorMessage(e)}`);
      return;
    }
    if (mode === 'always') void this.check(r.id).catch((e) => this.deps.current().chat.error(errorMessage(e), false));
  }

  /** Compaction `id` (default: the last one) and what checking it costs. */
  offerFor(id?: string): { id: string; offer: ProbeCheckOffer } {
    const r = this.record(id);
    return { id: r.id, offer: this.offer(r.id) };
  }

  /** What checking compaction `id` sends and costs (estimated from the context's tokens and the questions'). */
  offer(id: string, offer = false): ProbeCheckOffer {
    const probes = this.probesOf(this.record(id));
    const settings = this.deps.settings();
    const model = probeModelFor(settings.probes?.model, settings.model);
    const inputTokens = this.deps.current().pipeline.currentTokens() + this.deps.tokenizer.countText(probeQuestionsPrompt(probes));
    return { model, probes: probes.length, inputTokens, estimateUSD: estimateProbeCost(model, inputTokens, probes.length), offer };
  }

  /** The probes of what compaction `r` archived: its transcript less the history it left; the kept messages are "later". */
  probesOf(r: CompactionRecord): Probe[] {
    const session = this.deps.current().session;
    const records = session.meta.compactions;
    const next = records[records.findIndex((c) => c.id === r.id) + 1];
    const after = (next ? this.transcript(next) : session.messages).slice(0, r.resultLength);
    const kept = new Set(after.map((m) => m.id));
    const archived = this.transcript(r).filter((m) => !kept.has(m.id));
    return generateProbes({ archived, later: after.filter((m) => !m.synthetic) });
  }

  /**
   * Check compaction `id` (default: the last one): one request with the compacted context and the
   * questions; the card shows the result (or why it failed). Resolves with the card. It may run while
   * the agent works (an auto-compaction with 'always'): the context is read once, as the compaction left
   * it, and the request is the check's own.
   */
  async check(id?: string): Promise<ProbeCheckItem> {
    const record = this.record(id);
    const scope = this.deps.current();
    const probes = this.probesOf(record);
    const settings = this.deps.settings();
    const model = probeModelFor(settings.probes?.model, settings.model);
    const checkId = `probes_${record.id}_${++this.seq}`;
    this.checks.set(checkId, { compactionId: record.id, probes });
    const card = emptyCard(checkId, record.id, model, probes);
    scope.chatLog.upsert(card);
    if (probes.length === 0)
      return this.finish(scope, { ...card, status: 'failed', error: 'This compaction archived nothing to ask about.' });
    const key = await this.deps.getApiKey();
    if (!key) return this.finish(scope, { ...card, status: 'failed', error: new MissingApiKeyError().message });
    const parts = this.deps.agents.requestParts(key, settings);
    const context = scope.pipeline.prepareRequest().messages;
    const asked = new Set(probes.map((p) => p.id));
    const followed = (this.followUps.get(scope.session.id) ?? []).filter((p) => !asked.has(p.id));
    const result = await runProbeRequest({ ...parts, model, context, probes: [...probes, ...followed] });
    if (!result.ok) return this.finish(scope, { ...card, status: 'failed', error: result.error });
    for (const note of result.notes) scope.chat.notice(note);
    const done = scoredCard(card, probes, result.answers, this.undoable(record.id));
    if (followed.length > 0) done.followed = this.followedViews(scope.session.id, followed, result.answers);
    this.deps.log.info(`Probe check of ${record.id} (${model}): ${done.correct}/${done.total} correct`);
    return this.finish(scope, { ...done, ...(result.costUSD !== null ? { costUSD: result.costUSD } : {}) });
  }

  /** An action of a card on one of its missed probes. Throws a plain-words error when it cannot be done. */
  act(checkId: string, probeId: string, action: ProbeAction): void {
    const scope = this.deps.current();
    const item = scope.chatLog.get(checkId);
    if (!item || item.kind !== 'probes') throw new Error(`There is no probe check "${checkId}" in this chat.`);
    const state = this.checks.get(checkId) ?? { compactionId: item.compactionId, probes: this.probesOf(this.record(item.compactionId)) };
    const probe = state.probes.find((p) => p.id === probeId);
    if (!probe) throw new Error(`The check "${checkId}" has no probe "${probeId}".`);
    if (action === 'undo') {
      this.undoOf(state.compactionId);
      return;
    }
    if (action === 'pin') this.pinSource(state.compactionId, probe);
    else this.addToLedger(state.compactionId, probe);
    this.follow(probe);
    const done = action === 'pin' ? ('pinned' as const) : ('added' as const);
    const now = this.deps.current().chatLog.get(checkId);
    if (now?.kind === 'probes')
      this.deps.current().chatLog.upsert({ ...now, missed: now.missed.map((m) => (m.probeId === probeId ? { ...m, done } : m)) });
  }

  /** How the followed probes were answered; the answered ones are no longer followed. */
  private followedViews(sessionId: string, followed: readonly Probe[], answers: readonly ProbeAnswer[]): ProbeFollowView[] {
    const views = followed.map((p) => ({
      probeId: p.id,
      question: p.question,
      expected: p.expected,
      answered: verdictOf(answers.find((a) => a.id === p.id)) === 'correct',
    }));
    const answered = new Set(views.filter((v) => v.answered).map((v) => v.probeId));
    this.followUps.set(
      sessionId,
      (this.followUps.get(sessionId) ?? []).filter((p) => !answered.has(p.id)),
    );
    return views;
  }

  private follow(probe: Probe): void {
    const id = this.deps.current().session.id;
    const list = this.followUps.get(id) ?? [];
    if (!list.some((p) => p.id === probe.id)) this.followUps.set(id, [...list, probe]);
  }

  /** Pin the probe's source: in the history, the next compaction keeps it; archived, the compaction is undone first. */
  private pinSource(compactionId: string, probe: Probe): void {
    const source = probe.sources[0];
    if (!source) throw new Error('This probe names no source message to pin.');
    const inHistory = () => this.deps.current().session.messages.some((m) => m.id === source);
    if (!inHistory()) {
      if (!this.undoable(compactionId))
        throw new Error('Its source message was archived, and this is not the last compaction: undo the later ones first.');
      this.undoOf(compactionId);
      if (!inHistory()) throw new Error('The undone history does not hold the source message; nothing was pinned.');
    }
    const scope = this.deps.current();
    scope.pin(source);
    scope.chat.notice('Pinned the source message of the missed probe: every compaction from now on keeps it verbatim.');
  }

  /** The probe's question and expected answer into the ledger of the compaction, re-applied (transcript first). */
  private addToLedger(compactionId: string, probe: Probe): void {
    if (!this.undoable(compactionId)) throw new Error('Facts go to the ledger of the last compaction only, and this is not it.');
    const outcome = this.deps.current().pipeline.addLedgerFacts([{ question: probe.question, expected: probe.expected }]);
    if (!outcome.ok) throw new Error(outcome.message);
    this.deps
      .current()
      .chat.notice(
        outcome.added.length > 0 ? `Added to the compaction's ledger: ${outcome.added.join('; ')}` : 'The ledger already holds that fact.',
      );
  }

  private undoOf(compactionId: string): void {
    if (!this.undoable(compactionId)) throw new Error('Only the last compaction can be undone, and this is not it.');
    const outcome = this.deps.undo();
    if (!outcome.ok) throw new Error(outcome.message);
  }

  /** The compaction Undo would undo is `id`. */
  private undoable(id: string): boolean {
    const last = this.deps.current().session.meta.compactions.at(-1);
    return last !== undefined && last.id === id && last.trigger !== 'undo';
  }

  private finish(scope: SessionScope, card: ProbeCheckItem): ProbeCheckItem {
    scope.chatLog.upsert(card);
    return card;
  }

  /** Compaction `id`, or the last one that is not an undo; a clear error otherwise. */
  private record(id?: string): CompactionRecord {
    const records = this.deps.current().session.meta.compactions;
    const r = id === undefined ? [...records].reverse().find((c) => c.trigger !== 'undo') : records.find((c) => c.id === id);
    if (!r) throw new Error(id === undefined ? 'This chat has no compaction to check.' : `This chat has no compaction "${id}".`);
    if (r.trigger === 'undo') throw new Error(`"${id}" is an undo, not a compaction.`);
    return r;
  }

  private transcript(r: CompactionRecord): Message[] {
    if (this.deps.readTranscript) return this.deps.readTranscript(r.transcriptPath);
    try {
      return restoreTranscript(r.transcriptPath, r.transcriptSha256);
    } catch (e) {
      throw new Error(`Could not read the transcript ${r.transcriptPath}: ${errorMessage(e)}`, { cause: e });
    }
  }
}

function emptyCard(id: string, compactionId: string, model: string, probes: readonly Probe[]): ProbeCheckItem {
  const byKind = Object.fromEntries(
    PROBE_KINDS.map((k) => [k, { correct: 0, total: probes.filter((p) => p.kind === k).length }]),
  ) as ProbeCheckItem['byKind'];
  return { kind: 'probes', id, compactionId, model, status: 'running', correct: 0, total: probes.length, byKind, missed: [] };
}

/** An answer of "unknown" (the prompt asks for it when the context does not say) is no answer. */
function verdictOf(a: ProbeAnswer | undefined): ProbeAnswer['verdict'] {
  if (!a) return 'unanswered';
  return /^\W*unknown\W*$/i.test(a.answer.trim()) ? 'unanswered' : a.verdict;
}

/** The card once answered: the rate overall and by kind; the missed probes (wrong, unanswered), then the uncertain ones. */
export function scoredCard(
  card: ProbeCheckItem,
  probes: readonly Probe[],
  answers: readonly ProbeAnswer[],
  undoable: boolean,
): ProbeCheckItem {
  const byId = new Map(answers.map((a) => [a.id, a]));
  const byKind = structuredClone(card.byKind);
  const missed: ProbeMissView[] = [];
  let correct = 0;
  for (const p of probes) {
    const verdict = verdictOf(byId.get(p.id));
    if (verdict === 'correct') {
      correct++;
      byKind[p.kind].correct++;
      continue;
    }
    missed.push({
      probeId: p.id,
      kind: p.kind,
      question: p.question,
      expected: p.expected,
      answer: byId.get(p.id)?.answer ?? '',
      verdict,
      sourceId: p.sources[0] ?? null,
    });
  }
  missed.sort((a, b) => Number(a.verdict === 'uncertain') - Number(b.verdict === 'uncertain'));
  return { ...card, status: 'done', correct, byKind, missed, undoable };
}
