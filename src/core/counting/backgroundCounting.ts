// Counting a whole conversation without freezing the thread it runs on (the extension host).
//
// A first count of a long session (opening a 1M-token transcript, switching the tokenizer, restoring
// a session after a reload) is hundreds of milliseconds of encoder work. countMessagesInBackground
// does the same work as MemoizedMessageCounter.countMessages, with the same result and the same
// memo, but in slices of about `sliceMs` milliseconds, giving the event loop a turn (setImmediate)
// between slices, and reports the longest slice it ran.
//
// A slice ends after the unit of work that crossed `sliceMs`, so a unit must be short: a message's
// texts are counted one at a time, and a text longer than `pieceChars` is counted in pieces cut
// after line breaks where no o200k pre-token can span the cut (isSafeCut), so the sum of the pieces
// is exactly the count of the whole. A single line longer than `pieceChars` (minified code) is
// still one unit.
//
// Not sliceable: loading the encoder's ranks is one synchronous step (about 0.15-0.3 s for
// gpt-tokenizer, 0.5-1.8 s for js-tiktoken on this machine). It is done first, as its own step, and
// reported separately as `rankLoadMs`; callers that must never block should warm the tokenizer up
// at an idle moment (or accept that one step) before counting.
import type { Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';
import { isWhitespace, LONG_RUN_CHARS, warmupTokenizer } from './tokenizers';
import { countMessageWith, type MemoizedMessageCounter, type TextTokenizer } from './tokens';

export interface BackgroundCountOptions {
  /** Target length of one synchronous slice, in ms (default 8: half a frame). */
  sliceMs?: number;
  /**
   * Texts longer than this many characters are counted in pieces cut after line breaks (default
   * 16,384), by the o200k encoders only (whose counts add up exactly across such cuts).
   */
  pieceChars?: number;
  /** Stops between slices; messages counted so far stay memoized. */
  signal?: AbortSignal;
  /** How to give the event loop a turn between slices (default: a setImmediate). */
  yieldToEventLoop?: () => Promise<void>;
  /** Called after every slice. */
  onProgress?: (progress: BackgroundCountProgress) => void;
}

export interface BackgroundCountProgress {
  /** Messages looked at so far (counted now or already memoized). */
  done: number;
  total: number;
  tokens: number;
}

export interface BackgroundCountResult {
  /** Sum over the messages: exactly what counter.countMessages(messages) returns. */
  tokens: number;
  messages: number;
  /** Messages this call counted (the others were already memoized). */
  newlyCounted: number;
  /** Synchronous slices of counting work (yields + 1). */
  slices: number;
  /** Longest slice of counting work, wall time in ms (the rank load is reported separately). */
  longestSliceMs: number;
  /**
   * Longest slice measured in CPU time (user + system of the process), in ms. Lower than the wall
   * time when the OS ran other processes on this core in the middle of a slice.
   */
  longestSliceCpuMs: number;
  /** ms this call spent loading the encoder's ranks, in one synchronous step (0 if already loaded). */
  rankLoadMs: number;
  /** Time this call kept the thread busy: the rank load plus every slice. */
  busyMs: number;
  /** Wall time from the call to the result, including what else ran between slices. */
  elapsedMs: number;
}

/** The count was stopped through its AbortSignal. */
export class CountAbortedError extends SplitpointError {
  constructor(readonly done: number) {
    super(`token counting was cancelled after ${done} messages`);
    this.name = 'CountAbortedError';
  }
}

/**
 * Encoders whose counts add up across safe cuts (o200k's pre-tokenizer; see isSafeCut). Others, such
 * as chars/4 (which rounds each text up), always count a text whole.
 */
const PIECEWISE_EXACT = new Set(['gpt-tokenizer', 'js-tiktoken']);

/** Whether counts of `tokenizer` add up over pieces cut by splitAtSafeBoundaries (the o200k encoders). */
export function piecewiseExact(tokenizer: TextTokenizer): boolean {
  return PIECEWISE_EXACT.has(tokenizer.name);
}

export const DEFAULT_SLICE_MS = 8;
export const DEFAULT_PIECE_CHARS = 16_384;

const setImmediateYield = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Count `messages` (memoizing each, like counter.countMessages) in slices of about `sliceMs`,
 * yielding to the event loop between slices. Messages appended to the array while this runs are not
 * counted by this call.
 */
export async function countMessagesInBackground(
  counter: MemoizedMessageCounter,
  messages: readonly Message[],
  options: BackgroundCountOptions = {},
): Promise<BackgroundCountResult> {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const pieceChars = options.pieceChars ?? DEFAULT_PIECE_CHARS;
  const yieldNow = options.yieldToEventLoop ?? setImmediateYield;
  const tokenizer = counter.tokenizer;
  const splittable = PIECEWISE_EXACT.has(tokenizer.name);
  const total = messages.length;
  const started = performance.now();

  if (options.signal?.aborted) throw new CountAbortedError(0);
  const rankLoadMs = warmupTokenizer(tokenizer);

  let tokens = 0;
  let newlyCounted = 0;
  let slices = 1;
  let longestSliceMs = 0;
  let busyMs = rankLoadMs;
  let done = 0;
  let sliceStart = performance.now();

  let sliceCpu = process.cpuUsage();
  let longestSliceCpuMs = 0;
  /** True when the current slice has run for sliceMs (checked without awaiting: cheap). */
  const sliceOver = () => performance.now() - sliceStart >= sliceMs;
  /** Ends the slice: records it, yields, then starts the next one. */
  const endSlice = async (): Promise<void> => {
    const length = performance.now() - sliceStart;
    longestSliceMs = Math.max(longestSliceMs, length);
    longestSliceCpuMs = Math.max(longestSliceCpuMs, cpuMsSince(sliceCpu));
    busyMs += length;
    options.onProgress?.({ done, total, tokens });
    await yieldNow();
    if (options.signal?.aborted) throw new CountAbortedError(done);
    slices++;
    sliceStart = performance.now();
    sliceCpu = process.cpuUsage();
  };

  for (let i = 0; i < total; i++) {
    const message = messages[i];
    const known = counter.peek(message);
    if (known !== undefined) {
      tokens += known;
      done++;
      if ((i & 255) === 255 && sliceOver()) await endSlice();
      continue;
    }
    // The texts countMessageWith would count, in the order it counts them.
    const texts: string[] = [];
    countMessageWith({ name: 'recorder', countText: (t) => (texts.push(t), 0) }, message);
    const counts: number[] = [];
    for (const text of texts) {
      if (text.length <= pieceChars || !splittable) {
        counts.push(tokenizer.countText(text));
        if (sliceOver()) await endSlice();
        continue;
      }
      let sum = 0;
      for (const piece of splitAtSafeBoundaries(text, pieceChars)) {
        sum += tokenizer.countText(piece);
        if (sliceOver()) await endSlice();
      }
      counts.push(sum);
    }
    let next = 0;
    const replay: TextTokenizer = { name: tokenizer.name, countText: () => counts[next++] };
    const n = countMessageWith(replay, message);
    counter.remember(message, n);
    tokens += n;
    newlyCounted++;
    done++;
    if (sliceOver()) await endSlice();
  }

  const lastSlice = performance.now() - sliceStart;
  longestSliceMs = Math.max(longestSliceMs, lastSlice);
  longestSliceCpuMs = Math.max(longestSliceCpuMs, cpuMsSince(sliceCpu));
  busyMs += lastSlice;
  options.onProgress?.({ done, total, tokens });
  return {
    tokens,
    messages: total,
    newlyCounted,
    slices,
    longestSliceMs,
    longestSliceCpuMs,
    rankLoadMs,
    busyMs,
    elapsedMs: performance.now() - started,
  };
}

/**
 * Cut `text` into pieces of at most about `maxChars` whose o200k counts add up to the count of the
 * whole. A piece grows past `maxChars` only when it has no cut (see isSafeCut).
 */
export function splitAtSafeBoundaries(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    let cut = lastSafeCut(text, start, start + maxChars);
    if (cut === -1) cut = firstSafeCut(text, start + maxChars);
    if (cut === -1) break;
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * May the text be cut at `i` without changing its count? Only right after the last newline of a
 * line break: text[i - 1] is "\n", and text[i] is neither "/" nor a line break, nor the start of
 * an indent that runs into another line break. Why that is exact, for o200k's pre-tokenizer:
 *  - a pre-token that contains a newline is `\s*[\r\n]+`, which ends after the last line break of
 *    its whitespace run, or punctuation followed by `[\r\n/]*`, which continues only into more line
 *    breaks or "/"; letter, digit and contraction pre-tokens never contain a line break;
 *  - so the pre-token holding text[i - 1] ends at i, matching restarts at i in the whole text just
 *    as it starts at 0 in the second piece, and nothing before i looks past it (the one lookahead,
 *    `\s+(?!\S)`, is tried after `\s*[\r\n]+`, which already matched).
 * The long-run guard (countInSegments) must also see the same runs: the whitespace stretch around
 * the cut must be shorter than LONG_RUN_CHARS, so it is not a long run in the whole text either.
 */
export function isSafeCut(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length || text.charCodeAt(i - 1) !== 0x0a) return false;
  const c = text.charCodeAt(i);
  if (c === 0x2f || c === 0x0a || c === 0x0d) return false;
  if (!isWhitespace(c)) return true;
  let end = i;
  while (end < text.length && isWhitespace(text.charCodeAt(end))) {
    const e = text.charCodeAt(end);
    if (e === 0x0a || e === 0x0d) return false;
    end++;
  }
  let start = i - 1;
  while (start > 0 && isWhitespace(text.charCodeAt(start - 1))) start--;
  return end - start < LONG_RUN_CHARS;
}

/** The last safe cut in (from, limit], or -1. */
function lastSafeCut(text: string, from: number, limit: number): number {
  let nl = text.lastIndexOf('\n', limit - 1);
  while (nl >= from) {
    if (nl + 1 > from && isSafeCut(text, nl + 1)) return nl + 1;
    nl = nl === 0 ? -1 : text.lastIndexOf('\n', nl - 1);
  }
  return -1;
}

/** The first safe cut at or after `from`, or -1. */
function firstSafeCut(text: string, from: number): number {
  let nl = text.indexOf('\n', Math.max(0, from - 1));
  while (nl !== -1) {
    if (isSafeCut(text, nl + 1)) return nl + 1;
    nl = text.indexOf('\n', nl + 1);
  }
  return -1;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}
