// Layer 1, incrementally: keeps the micro-compacted view of a growing history up to date by looking
// only at new messages and the few results that leave the keep-recent window, so the per-turn cost
// does not grow with history length. Produces exactly what `planMicroCompact` would, given the results
// it had cleared before (`cleared`): old candidates wait in a batch until the batch decision
// (microBatch.ts) clears them all at once; a cleared result stays cleared until the history is rewritten.
// With `supersede`, a result that a newly appended call supersedes joins the batch whatever its age.
import type { Message, ToolResultBlock, ToolUseBlock } from '../conversation/conversation';
import type { MessageTokenCounter } from '../counting/tokens';
import type { ReplacementCache } from './replacementCache';
import { decideBatch, isCandidate, placeholderTokens, type MicroCompactDecision, type MicroCompactSettings } from './microBatch';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from './plan';
import { runSteps, type Steps } from '../base/slicedWork';
import { isPointerCandidate, pointerTokens, replacedInView, resultTokens, SupersedeTracker, type Supersession } from './supersede';

export type { MicroCompactSettings } from './microBatch';
export { requestFrontiers } from './cacheFrontier';

/** Units of work syncSteps does between two yields: a message counted (memoized: cheap) is one unit. */
const WORK_PER_STEP = 1024;
/** A placeholder copy made and counted (the copy is new: its blocks are counted) is this many units. */
const COPY_WORK = 8;

/** What the batch decision may read of the plan context (the cache state, the overhead, the model). */
export type MicroDecisionContext = Pick<PlanContext, 'cache' | 'overheadTokens' | 'model'>;

interface Figures {
  candidates: number;
  clearableTokens: number;
  savedTokens: number;
  unchangedPrefixTokens: number;
  superseded: { candidates: number; clearableTokens: number; savedTokens: number };
  /** The replaced copies, by message index. */
  after: Map<number, Message>;
}

export class IncrementalMicroCompactor {
  /** First and last message seen, to tell an append from a rewrite without copying the history. */
  private first: Message | undefined;
  private last: Message | undefined;
  private generation: number | undefined;
  private effective: Message[] = [];
  private results: Array<{ index: number; block: ToolResultBlock }> = [];
  private checked = 0;
  /** Old candidates not cleared yet (the batch), and the figures of the batch while it is held. */
  private pending: Array<{ index: number; block: ToolResultBlock }> = [];
  private figures: Figures | null = null;
  private readonly clearedIds = new Set<string>();
  /**
   * Messages an earlier batch changed: the original and the results cleared in it. A later batch's copy
   * is made from the original with all of them, as the pure strategy makes it, so its `truncated` notes
   * are in block order (a superseded result may be cleared before an older one in the same message).
   */
  private readonly changed = new Map<number, { original: Message; ids: Set<string> }>();
  /** supersede: the tracker, every result seen by id, the batch's ids, and the pointers (pending or cleared). */
  private tracker: SupersedeTracker | null = null;
  private byId = new Map<string, { index: number; block: ToolResultBlock; ordinal: number }>();
  private readonly pendingIds = new Set<string>();
  private pointers = new Map<string, Supersession>();
  private readonly pointerIds = new Set<string>();
  private decision: MicroCompactDecision | null = null;
  private names = new Map<string, string>();
  private total = 0;
  private truncatedCount = 0;
  /** Work done since syncSteps last yielded. */
  private work = 0;
  /** Results before this one (in `results`) can no longer change: cleared, or never a candidate. */
  private settled = 0;
  /** The frontier before the last batch, while no message was appended since (the batch's own request reads up to it). */
  private priorFrontier: number | null = null;

  constructor(
    private settings: MicroCompactSettings,
    private readonly tokens: MessageTokenCounter,
    private readonly copies?: ReplacementCache,
  ) {
    this.tracker = settings.supersede ? new SupersedeTracker() : null;
  }

  /**
   * Bring the view up to date with `messages`. A rewrite (not just appends) rebuilds from scratch;
   * pass the session's rewrite generation to make that explicit rather than inferred. `ctx` gives the
   * batch decision the cache state (absent: unknown, the cache is not weighed).
   */
  sync(messages: readonly Message[], generation?: number, ctx: MicroDecisionContext = {}): void {
    runSteps(this.syncSteps(messages, generation, ctx));
  }

  /**
   * sync() as steps: yields every WORK_PER_STEP units of work (a message counted, a result checked), so a
   * host can build a long history's first view with its event loop running between the steps
   * (CompactionPipeline.warmView). The state between two steps is partial: nothing else may sync until
   * the steps are run to the end.
   */
  *syncSteps(messages: readonly Message[], generation?: number, ctx: MicroDecisionContext = {}): Steps<void> {
    const n = this.effective.length;
    const appendedOnly =
      generation === this.generation && messages.length >= n && (n === 0 || (messages[0] === this.first && messages[n - 1] === this.last));
    if (!appendedOnly) this.reset();
    if (messages.length > this.effective.length) this.priorFrontier = null;
    this.generation = generation;
    for (let i = this.effective.length; i < messages.length; i++) {
      if (this.tick(1)) yield;
      const m = messages[i];
      this.effective.push(m);
      this.total += this.tokens.countMessage(m);
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') {
          this.names.set((b as { id: string }).id, (b as { name: string }).name);
          if (m.role === 'assistant') this.tracker?.use(b as ToolUseBlock);
        } else if (b.type === 'tool_result' && m.role === 'user') {
          const r = { index: i, block: b as ToolResultBlock };
          this.results.push(r);
          if (this.tracker) this.noteSuperseding(r);
        }
      }
    }
    this.first = messages[0];
    this.last = messages[messages.length - 1];
    yield* this.compactOld(ctx);
  }

  /** Change the settings: the view is rebuilt on the next sync. */
  configure(settings: MicroCompactSettings): void {
    if (sameSettings(settings, this.settings)) return;
    this.settings = settings;
    this.reset();
  }

  get messages(): readonly Message[] {
    return this.effective;
  }
  /** Tokens of the micro-compacted view. */
  get tokenTotal(): number {
    return this.total;
  }
  get truncatedResults(): number {
    return this.truncatedCount;
  }
  /** tool_use_ids the view has replaced (a copy). */
  get cleared(): ReadonlySet<string> {
    return new Set(this.clearedIds);
  }
  /** Of `cleared`, the results replaced by a superseded pointer. */
  get clearedPointers(): ReadonlySet<string> {
    return new Set(this.pointerIds);
  }
  /**
   * How many leading messages of the view no later batch can change (until the history is rewritten): the
   * messages before the first one that holds a result not cleared yet that a batch may still clear (a
   * candidate, kept recent or held; with supersede, any result). A cache breakpoint at the end of them
   * survives the next batch, so that batch's request reads them from the cache instead of re-writing them.
   */
  get stableMessages(): number {
    const supersede = this.settings.supersede === true;
    while (this.settled < this.results.length) {
      const { block } = this.results[this.settled];
      if (!this.clearedIds.has(block.tool_use_id) && (supersede || isCandidate(block, this.names, this.settings))) break;
      this.settled++;
    }
    return this.settled < this.results.length ? this.results[this.settled].index : this.effective.length;
  }

  /**
   * The frontiers a request marks (ascending): stableMessages, and the one before the last batch while no
   * message was appended since (the batch's request reads the prefix up to it; it writes the new one).
   */
  get frontiers(): number[] {
    const now = this.stableMessages;
    return this.priorFrontier !== null && this.priorFrontier < now ? [this.priorFrontier, now] : [now];
  }

  /** The last batch decision (null before any old candidate). */
  get lastDecision(): MicroCompactDecision | null {
    return this.decision;
  }

  /** Adds `units` of work; true when a step is full (syncSteps then yields). */
  private tick(units: number): boolean {
    this.work += units;
    if (this.work < WORK_PER_STEP) return false;
    this.work = 0;
    return true;
  }

  /** A new result: the earlier results it supersedes join the batch as pointers (unless cleared already). */
  private noteSuperseding(r: { index: number; block: ToolResultBlock }): void {
    this.byId.set(r.block.tool_use_id, { ...r, ordinal: this.results.length - 1 });
    const found = this.tracker!.superseded;
    for (const id of this.tracker!.result(r.block)) {
      const old = this.byId.get(id);
      const s = found.get(id);
      if (!old || !s || this.clearedIds.has(id) || !isPointerCandidate(old.block, s, this.names, this.settings)) continue;
      this.pointers.set(id, s);
      this.figures = null;
      if (!this.pendingIds.has(id)) {
        this.pending.push(old);
        this.pendingIds.add(id);
      }
    }
  }

  private reset(): void {
    this.first = undefined;
    this.last = undefined;
    this.effective = [];
    this.results = [];
    this.checked = 0;
    this.settled = 0;
    this.priorFrontier = null;
    this.pending = [];
    this.figures = null;
    this.clearedIds.clear();
    this.changed.clear();
    this.tracker = this.settings.supersede ? new SupersedeTracker() : null;
    this.byId = new Map();
    this.pendingIds.clear();
    this.pointers = new Map();
    this.pointerIds.clear();
    this.decision = null;
    this.names = new Map();
    this.total = 0;
    this.truncatedCount = 0;
  }

  private *compactOld(ctx: MicroDecisionContext): Steps<void> {
    const out = Math.max(0, this.results.length - this.settings.keepRecent);
    for (; this.checked < out; this.checked++) {
      if (this.tick(1)) yield;
      const r = this.results[this.checked];
      const id = r.block.tool_use_id;
      // A pending pointer that ages out now counts as an old result (measure): its figures change.
      if (this.pendingIds.has(id)) this.figures = null;
      else if (!this.clearedIds.has(id) && isCandidate(r.block, this.names, this.settings)) {
        this.pending.push(r);
        this.pendingIds.add(id);
        this.figures = null;
      }
    }
    if (this.pending.length === 0) return;
    const full: PlanContext = { ...DEFAULT_PLAN_CONTEXT, ...ctx, tokens: this.tokens };
    const f = (this.figures ??= yield* this.measure());
    this.decision = decideBatch({ ...f, viewTokens: this.total }, this.settings, full, this.effective);
    if (this.decision.action === 'cleared') yield* this.apply(f);
  }

  /** The pending batch's figures: what clearing it saves, and the view's tokens before its first message. */
  private *measure(): Steps<Figures> {
    const byMessage = new Map<number, Set<string>>();
    let placeholders = 0;
    const superseded = { candidates: 0, clearableTokens: 0, savedTokens: 0 };
    const oldCount = Math.max(0, this.results.length - this.settings.keepRecent);
    for (const { index, block } of this.pending) {
      if (this.tick(1)) yield;
      let ids = byMessage.get(index);
      if (!ids) byMessage.set(index, (ids = new Set()));
      ids.add(block.tool_use_id);
      const s = this.pointers.get(block.tool_use_id);
      if (!s) {
        placeholders += placeholderTokens(this.names.get(block.tool_use_id) ?? 'unknown tool', this.tokens);
        continue;
      }
      const pointer = pointerTokens(s, this.tokens);
      placeholders += pointer;
      // Only the results age alone would not clear yet ride along (the others count as old results do).
      const ordinal = this.byId.get(block.tool_use_id)!.ordinal;
      if (ordinal < oldCount && isCandidate(block, this.names, this.settings)) continue;
      superseded.candidates++;
      superseded.clearableTokens += resultTokens(block, this.tokens);
      superseded.savedTokens += resultTokens(block, this.tokens) - pointer;
    }
    const after = new Map<number, Message>();
    let savedTokens = 0;
    for (const [index, ids] of byMessage) {
      if (this.tick(COPY_WORK)) yield;
      const before = this.effective[index];
      const earlier = this.changed.get(index);
      const all = earlier ? new Set([...earlier.ids, ...ids]) : ids;
      const copy = replacedInView(earlier?.original ?? before, all, this.names, this.pointers, this.copies);
      after.set(index, copy);
      savedTokens += this.tokens.countMessage(before) - this.tokens.countMessage(copy);
    }
    let unchangedPrefixTokens = 0;
    const first = this.pending.reduce((n, r) => Math.min(n, r.index), Infinity);
    for (let i = 0; i < first; i++) {
      if (this.tick(1)) yield;
      unchangedPrefixTokens += this.tokens.countMessage(this.effective[i]);
    }
    return {
      candidates: this.pending.length,
      clearableTokens: savedTokens + placeholders,
      savedTokens,
      unchangedPrefixTokens,
      superseded,
      after,
    };
  }

  private *apply(f: Figures): Steps<void> {
    this.priorFrontier = this.stableMessages;
    for (const [index, copy] of f.after) {
      if (this.tick(2)) yield;
      this.total += this.tokens.countMessage(copy) - this.tokens.countMessage(this.effective[index]);
      if (!this.changed.has(index)) this.changed.set(index, { original: this.effective[index], ids: new Set() });
      this.effective[index] = copy;
    }
    for (const { index, block } of this.pending) {
      this.changed.get(index)!.ids.add(block.tool_use_id);
      this.clearedIds.add(block.tool_use_id);
      if (this.pointers.has(block.tool_use_id)) this.pointerIds.add(block.tool_use_id);
    }
    this.pendingIds.clear();
    this.truncatedCount += this.pending.length;
    this.pending = [];
    this.figures = null;
  }
}

function sameSettings(a: MicroCompactSettings, b: MicroCompactSettings): boolean {
  return (
    a.keepRecent === b.keepRecent &&
    a.minChars === b.minChars &&
    (a.triggerTokens ?? 0) === (b.triggerTokens ?? 0) &&
    (a.clearAtLeast ?? 0) === (b.clearAtLeast ?? 0) &&
    (a.cacheAware ?? false) === (b.cacheAware ?? false) &&
    a.horizonTurns === b.horizonTurns &&
    (a.supersede ?? false) === (b.supersede ?? false) &&
    (a.tools ?? []).join('\u0000') === (b.tools ?? []).join('\u0000')
  );
}
