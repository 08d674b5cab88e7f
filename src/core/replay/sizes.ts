// What each message of a recording cost the model, taken from the recorded usage instead of a local
// estimate. Within one recorded context (the span between two of the recording agent's compactions),
// call k's request is the context's prefix before the assistant message it produced, and the API
// reported that request's size T_k (input + cache read + cache write). The messages between calls k and
// k+1 therefore cost exactly T_{k+1} − T_k together; that amount is shared among them in proportion to
// their local counts (largest remainder, so the shares sum to it). The messages before a context's
// first call are counted with the context's own factor (Claude tokens per local token, fitted on the
// context's calls: one fit per segment, re-fitted after each recorded compaction), and what T_1 holds
// beyond them is the context's overhead (system prompt, tools, framing the recording does not show).
// A replay whose context equals the recorded one therefore sends exactly the recorded sizes; content the
// replay writes itself (summaries, cleared results) is counted with the factor of its segment.
import { isTurnStart, recordedInputTokens, type Message } from '../conversation/conversation';
import { recordedCalls, type RecordedCall } from '../counting/recordedCalls';
import type { MessageTokenCounter } from '../counting/tokens';

/** A request up to this many tokens smaller than its messages' sizes say is an estimate's error, not dropped content. */
const ABSORBED_DRIFT = 64;

/** The calibration of one recorded context. */
export interface ContextCalibration {
  /** Tokens every request of this context carries beyond its messages. */
  overhead: number;
  /** Model tokens per local token, fitted on this context's own calls (the global factor when it has too few). */
  factor: number;
  /** Tokens the context's first call read from the cache (what was warm before it wrote anything). */
  warmTokens: number;
  /** The context's calls, in order: index in the context of the message each produced, and its request size. */
  calls: Array<{ index: number; tokens: number; call: RecordedCall }>;
}

export class RecordedSizes implements MessageTokenCounter {
  /** A message's size while its turn is the current one (what the recorded deltas show). */
  private readonly live = new WeakMap<Message, number>();
  /**
   * Its size once a later turn began, where that differs (Codex drops a turn's reasoning when the next
   * begins), from which call on (ordinals over the whole recording, oldest first).
   */
  private readonly settledSizes = new WeakMap<Message, Array<{ from: number; size: number }>>();
  /** The segment whose factor counts content the replay writes (set by the replay as it walks the calls). */
  segment = 0;
  /** The call (ordinal over the whole recording, 0-based) whose request is being sized (set by the replay). */
  at = Number.MAX_SAFE_INTEGER;
  private calibrated = 0;

  private constructor(
    private readonly raw: MessageTokenCounter,
    readonly contexts: ContextCalibration[],
  ) {}

  /**
   * Sizes for every message of `contexts` (each compaction's `before`, then the current context).
   * `fallbackFactor` scales contexts without two calls to fit on.
   */
  static of(contexts: readonly (readonly Message[])[], raw: MessageTokenCounter, fallbackFactor: number): RecordedSizes {
    const calibrations: ContextCalibration[] = [];
    const out = new RecordedSizes(raw, calibrations);
    for (const context of contexts) calibrations.push(out.calibrate(context, fallbackFactor, calibrations.at(-1)));
    out.at = Number.MAX_SAFE_INTEGER;
    return out;
  }

  /** The factor of the current segment. */
  get factor(): number {
    return this.contexts[Math.min(this.segment, this.contexts.length - 1)]?.factor ?? 1;
  }

  /** The settled recorded size of a message of the recording, else its local count scaled by the current segment's factor. */
  countMessage(message: Message): number {
    return this.settledAt(message)?.size ?? this.live.get(message) ?? this.estimate(message);
  }

  /** The settled size in force at call `at`, and its version (1 = the first settling). */
  private settledAt(message: Message): { size: number; version: number } | undefined {
    const versions = this.settledSizes.get(message);
    if (!versions) return undefined;
    let found: { size: number; version: number } | undefined;
    versions.forEach((v, i) => {
      if (v.from <= this.at) found = { size: v.size, version: i + 1 };
    });
    return found;
  }

  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const m of messages) total += this.countMessage(m);
    return total;
  }

  /** The size of `message` in a request whose current turn it belongs to (`live`) or not. */
  sizeIn(message: Message, live: boolean): number {
    return live ? (this.live.get(message) ?? this.countMessage(message)) : this.countMessage(message);
  }

  /** How many times the message's size as sent has changed by call `at` (0: never; another version is another cache key). */
  version(message: Message): number {
    return this.settledAt(message)?.version ?? 0;
  }

  /** Whether `message` has a size taken from the recording (not an estimate). */
  recorded(message: Message): boolean {
    return this.live.has(message);
  }

  private estimate(message: Message): number {
    return Math.round(this.raw.countMessage(message) * this.factor);
  }

  private calibrate(context: readonly Message[], fallbackFactor: number, previous: ContextCalibration | undefined): ContextCalibration {
    const calls = recordedCalls([context]).map((call) => ({ index: call.input.length, tokens: recordedInputTokens(call.usage), call }));
    const offset = this.calibrated;
    this.calibrated += calls.length;
    const factor = fitFactor(context, calls, this.raw) ?? fallbackFactor;
    const estimate = (from: number, to: number) => {
      for (let i = from; i < to; i++) this.live.set(context[i], Math.round(this.raw.countMessage(context[i]) * factor));
    };
    if (calls.length === 0) {
      estimate(0, context.length);
      return { overhead: previous?.overhead ?? 0, factor, warmTokens: 0, calls };
    }
    const first = calls[0];
    estimate(0, first.index);
    let head = 0;
    for (let i = 0; i < first.index; i++) head += this.live.get(context[i])!;
    if (head > first.tokens) {
      // The first messages alone estimate more than the whole request: share the request among them.
      this.share(context, 0, first.index, first.tokens);
      head = first.tokens;
    }
    const overhead = first.tokens - head;
    const turnStarts = turnStartsOf(context, calls);
    for (let k = 1; k < calls.length; k++) {
      const from = calls[k - 1].index;
      const to = calls[k].index;
      if (turnStarts[k] === turnStarts[k - 1]) {
        const delta = calls[k].tokens - calls[k - 1].tokens;
        if (delta >= 0) this.share(context, from, to, delta);
        else estimate(from, to);
        continue;
      }
      // A new turn: what the request holds now fixes the earlier turns' settled sizes from this call on.
      this.at = offset + k;
      estimate(from, to);
      let sent = overhead;
      for (let i = 0; i < to; i++) sent += i < turnStarts[k] ? this.countMessage(context[i]) : this.live.get(context[i])!;
      const drift = sent - calls[k].tokens;
      // Dropped: the last turn's messages settle smaller first, then the earlier turns' if that is not enough.
      const block = this.sum(context, from, to);
      // A difference the new block can take is its estimate being off: it absorbs it (no content changed).
      if (drift <= Math.max(ABSORBED_DRIFT, block)) this.share(context, from, to, Math.max(0, block - drift));
      else this.settle(context, 0, turnStarts[k - 1], this.settle(context, turnStarts[k - 1], turnStarts[k], drift));
    }
    estimate(calls[calls.length - 1].index, context.length);
    return { overhead, factor, warmTokens: Math.min(first.call.usage.cacheReadTokens, overhead), calls };
  }

  private sum(context: readonly Message[], from: number, to: number): number {
    let total = 0;
    for (let i = from; i < to; i++) total += this.live.get(context[i])!;
    return total;
  }

  /**
   * The messages context[from, to) held `drop` tokens the next turn's requests no longer carry (reasoning
   * the agent drops): the newest assistant messages settle smaller first (the newest of the others only
   * when they are not enough), so the oldest prefix, which the provider still had cached, keeps its size.
   * Returns what it could not take.
   */
  private settle(context: readonly Message[], from: number, to: number, drop: number): number {
    let left = drop;
    for (const pick of [(m: Message) => m.role === 'assistant', (m: Message) => m.role !== 'assistant']) {
      for (let i = to - 1; i >= from && left > 0; i--) {
        const m = context[i];
        if (!pick(m)) continue;
        const size = this.countMessage(m);
        const cut = Math.min(size, left);
        if (cut <= 0) continue;
        left -= cut;
        const versions = this.settledSizes.get(m) ?? [];
        versions.push({ from: this.at, size: size - cut });
        this.settledSizes.set(m, versions);
      }
    }
    return Math.max(0, left);
  }

  /** Shares `total` among context[from, to) in proportion to their local counts (largest remainder). */
  private share(context: readonly Message[], from: number, to: number, total: number): void {
    if (to <= from) return;
    const weights: number[] = [];
    let sum = 0;
    for (let i = from; i < to; i++) {
      const w = this.raw.countMessage(context[i]);
      weights.push(w);
      sum += w;
    }
    if (sum === 0) for (let i = 0; i < weights.length; i++) weights[i] = 1;
    const weightSum = sum === 0 ? weights.length : sum;
    const exact = weights.map((w) => (w / weightSum) * total);
    const floors = exact.map(Math.floor);
    let left = total - floors.reduce((a, b) => a + b, 0);
    const order = exact.map((e, i) => [e - floors[i], i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, i] of order) {
      if (left <= 0) break;
      floors[i]++;
      left--;
    }
    for (let i = from; i < to; i++) this.live.set(context[i], floors[i - from]);
  }
}

/** Recorded growth between calls over local growth, on the blocks that grew; null when none did. */
function fitFactor(
  context: readonly Message[],
  calls: ReadonlyArray<{ index: number; tokens: number }>,
  raw: MessageTokenCounter,
): number | null {
  let grown = 0;
  let counted = 0;
  for (let k = 1; k < calls.length; k++) {
    const delta = calls[k].tokens - calls[k - 1].tokens;
    const local = raw.countMessages(context.slice(calls[k - 1].index, calls[k].index));
    if (delta > 0 && local > 0) {
      grown += delta;
      counted += local;
    }
  }
  return counted > 0 ? grown / counted : null;
}

/** For each call, the index of the prompt that began its turn (the last genuine prompt before it; 0 when none). */
export function turnStartsOf(context: readonly Message[], calls: ReadonlyArray<{ index: number }>): number[] {
  const out: number[] = [];
  let start = 0;
  let i = 0;
  for (const call of calls) {
    for (; i < call.index; i++) if (isTurnStart(context[i])) start = i;
    out.push(start);
  }
  return out;
}

/** The index in `messages` where the current turn began (the last genuine prompt; 0 when none). */
export function currentTurnStart(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (isTurnStart(messages[i])) return i;
  return 0;
}
