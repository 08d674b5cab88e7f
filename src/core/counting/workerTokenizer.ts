// Token counting on a worker thread, for a host thread that must never wait (the extension host).
//
// WorkerTokenizer starts countWorker.ts on a node:worker_threads Worker, which loads the encoder's
// ranks there (the one synchronous 0.15-0.3 s step of in-thread counting). It is a TextTokenizer, so
// the synchronous engine keeps working unchanged:
//  - countTexts(texts) is asynchronous: the host awaits it and its thread stays free;
//  - countText(text) is synchronous: it posts the text on a MessagePort and sleeps on a shared Int32
//    (Atomics.wait) until the worker answers. It is for the few texts the engine meets after the
//    host has counted a session through countMessagesInWorker (a new message, a summary, a
//    placeholder): the memo and CachingTextTokenizer answer everything counted before.
// countMessagesInWorker fills a MemoizedMessageCounter's memo through countTexts, in batches, with the
// exact counts countMessage would give (same encoder, same texts).
//
// If the worker cannot count (its file is missing, it failed to load the encoder, it exited), the
// optional `fallback` tokenizer counts in the thread instead (the old behaviour); without one, every
// call fails with a CountWorkerError that says why.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Message } from '../conversation/conversation';
import type { CountReply, CountRequest, WorkerStatus } from './countWorker';
import { SplitpointError } from '../base/errors';
import type { Disposable } from '../base/events';
import { DEFAULT_TOKENIZER, type LazyTextTokenizer, type TokenizerName } from './tokenizers';
import { countMessageWith, type MemoizedMessageCounter, type TextTokenizer } from './tokens';

/** The counting worker failed, exited, was disposed, or rejected a request; `remoteName` is the worker-side error's name. */
export class CountWorkerError extends SplitpointError {
  constructor(
    message: string,
    readonly remoteName?: string,
  ) {
    super(message);
    this.name = 'CountWorkerError';
  }
}

export interface WorkerTokenizerOptions {
  /** The encoder the worker loads (default DEFAULT_TOKENIZER). */
  tokenizer?: TokenizerName;
  /** The worker's script (default: countWorker.js beside this bundle, else countWorker.ts beside this source). */
  workerPath?: string;
  /** How long a synchronous countText waits for the worker before failing (default 30 s). */
  syncTimeoutMs?: number;
  /** Counts in this thread once the worker cannot (it failed to start or exited); absent: those calls throw. */
  fallback?: () => TextTokenizer;
  /** Called once when the fallback takes over, with the reason. */
  onFallback?: (reason: string) => void;
}

/** Where the worker script is: dist/countWorker.js in a bundle, src/core/counting/countWorker.ts under tsx. */
export function defaultCountWorkerPath(): string {
  // __filename, not __dirname: tsx gives a module loaded from an ES module a data: URL as __dirname.
  const dir = typeof __filename === 'string' ? dirname(__filename) : process.cwd();
  const candidates = [join(dir, 'countWorker.js'), join(dir, 'countWorker.ts')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}

type State = 'starting' | 'ready' | 'failed' | 'disposed';

interface Pending {
  resolve: (counts: number[]) => void;
  reject: (error: Error) => void;
}

export class WorkerTokenizer implements LazyTextTokenizer, Disposable {
  readonly name: TokenizerName;
  /** Resolves with the ms the worker spent loading the ranks; rejects if it could not (and there is no fallback). */
  readonly ready: Promise<number>;
  private readonly worker: Worker | undefined;
  private readonly syncPort: MessagePort | undefined;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, Pending>();
  private readonly syncTimeoutMs: number;
  private state: State = 'starting';
  private failure: CountWorkerError | undefined;
  private inThread: TextTokenizer | undefined;
  private loadMs: number | undefined;
  private nextId = 1;
  private settle!: { resolve: (ms: number) => void; reject: (e: Error) => void };

  constructor(private readonly options: WorkerTokenizerOptions = {}) {
    this.name = options.tokenizer ?? DEFAULT_TOKENIZER;
    this.syncTimeoutMs = options.syncTimeoutMs ?? 30_000;
    this.ready = new Promise<number>((resolve, reject) => (this.settle = { resolve, reject }));
    // Nobody may be listening yet; an unhandled rejection would crash the host.
    this.ready.catch(() => undefined);
    const path = options.workerPath ?? defaultCountWorkerPath();
    if (!existsSync(path)) {
      this.fail(new CountWorkerError(`the token-counting worker ${path} does not exist`));
      return;
    }
    const { port1, port2 } = new MessageChannel();
    this.syncPort = port1;
    const workerOptions = { workerData: { tokenizer: this.name, syncPort: port2, signal: this.signal }, transferList: [port2] };
    // The TypeScript source (tests, the bench under tsx) is loaded through tsx's require hook.
    this.worker = path.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(path)});`, { ...workerOptions, eval: true })
      : new Worker(path, workerOptions);
    // The worker keeps the process alive only while it loads or has requests to answer (updateRef).
    port1.unref();
    this.worker.on('message', (m: WorkerStatus | CountReply) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(new CountWorkerError(`the token-counting worker failed: ${e.message}`, e.name)));
    this.worker.on('exit', (code) => {
      if (this.state !== 'disposed') this.fail(new CountWorkerError(`the token-counting worker exited (code ${code})`));
    });
  }

  /** True once the worker has loaded the ranks (or the in-thread fallback took over). */
  get loaded(): boolean {
    return this.state === 'ready' || (this.state === 'failed' && this.inThread !== undefined);
  }

  get loadTimeMs(): number | undefined {
    return this.loadMs;
  }

  /** Never blocks: the worker loads the ranks on its own thread as soon as it starts. Returns 0. */
  warmup(): number {
    return 0;
  }

  /** Counts `texts` on the worker; the calling thread stays free. */
  countTexts(texts: readonly string[]): Promise<number[]> {
    const usable = this.usable();
    if (usable !== 'worker')
      return usable === 'fallback' ? Promise.resolve(texts.map((t) => this.inThread!.countText(t))) : Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.updateRef();
      this.worker!.postMessage({ id, texts } satisfies CountRequest);
    });
  }

  /** Counts `text` on the worker, blocking this thread until it answers (see the file comment). */
  countText(text: string): number {
    if (text.length === 0) return 0;
    const usable = this.usable();
    if (usable === 'fallback') return this.inThread!.countText(text);
    if (usable === 'failed') throw this.failure;
    const id = this.nextId++;
    Atomics.store(this.signal, 0, 0);
    this.syncPort!.postMessage({ id, texts: [text] } satisfies CountRequest);
    if (Atomics.wait(this.signal, 0, 0, this.syncTimeoutMs) === 'timed-out') {
      throw new CountWorkerError(`the token-counting worker did not answer within ${this.syncTimeoutMs} ms`);
    }
    for (let m = receiveMessageOnPort(this.syncPort!); m; m = receiveMessageOnPort(this.syncPort!)) {
      const reply = m.message as CountReply;
      if (reply.id !== id) continue; // the late answer to a request that timed out
      if ('error' in reply) throw new CountWorkerError(reply.error.message, reply.error.name);
      return reply.counts[0];
    }
    throw new CountWorkerError('the token-counting worker signalled an answer that never arrived');
  }

  /** Stops the worker; pending and later calls fail with a CountWorkerError. */
  dispose(): void {
    if (this.state === 'disposed') return;
    this.state = 'disposed';
    this.failure = new CountWorkerError('the token counter was disposed');
    this.inThread = undefined;
    this.rejectAll(this.failure);
    this.settle.reject(this.failure);
    this.syncPort?.close();
    void this.worker?.terminate();
  }

  private usable(): 'worker' | 'fallback' | 'failed' {
    if (this.state === 'starting' || this.state === 'ready') return 'worker';
    return this.state === 'failed' && this.inThread ? 'fallback' : 'failed';
  }

  private onMessage(m: WorkerStatus | CountReply): void {
    if ('type' in m) {
      if (m.type === 'ready') {
        this.loadMs = m.loadMs;
        if (this.state === 'starting') this.state = 'ready';
        this.settle.resolve(m.loadMs);
        this.updateRef();
      } else {
        this.fail(new CountWorkerError(m.error.message, m.error.name));
      }
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.updateRef();
    if ('error' in m) p.reject(new CountWorkerError(m.error.message, m.error.name));
    else p.resolve(m.counts);
  }

  private fail(error: CountWorkerError): void {
    if (this.state === 'disposed' || this.state === 'failed') return;
    this.state = 'failed';
    this.failure = error;
    if (this.options.fallback) {
      this.inThread = this.options.fallback();
      this.options.onFallback?.(error.message);
      this.loadMs = 0;
      this.settle.resolve(0);
    } else {
      this.settle.reject(error);
    }
    this.rejectAll(error);
    void this.worker?.terminate();
  }

  private updateRef(): void {
    if (this.state === 'starting' || this.pending.size > 0) this.worker?.ref();
    else this.worker?.unref();
  }

  private rejectAll(error: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/** Anything that counts texts asynchronously (WorkerTokenizer). */
export interface AsyncTextCounter {
  countTexts(texts: readonly string[]): Promise<number[]>;
}

export interface WorkerCountOptions {
  /** Characters sent to the worker per batch (default 250,000: the reply of one batch is handled on the calling thread in a few ms). */
  batchChars?: number;
  /** Messages per batch at most (default 2,048: a batch of tiny messages stays small too). */
  batchMessages?: number;
  /** Stops between batches (messages counted so far stay memoized). */
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Every text counted and its count (e.g. CachingTextTokenizer.remember, so copies of these texts are not recounted). */
  onText?: (text: string, count: number) => void;
}

export interface WorkerCountResult {
  /** Exactly what counter.countMessages(messages) returns. */
  tokens: number;
  messages: number;
  /** Messages this call counted (the others were already memoized). */
  newlyCounted: number;
  batches: number;
}

/** Messages on their way to the worker: their texts, and the set that finds them. */
interface Batch {
  items: Array<{ message: Message; texts: string[] }>;
  messages: Set<Message>;
  chars: number;
}

function newBatch(): Batch {
  return { items: [], messages: new Set(), chars: 0 };
}

/** How long a pass over the messages runs before it gives the event loop a turn, and how often it looks at the clock. */
const PASS_SLICE_MS = 8;
const PASS_CHECK_EVERY = 256;

/**
 * Fills `counter`'s memo for `messages` with counts made by `worker` (batches of texts; at most two
 * in flight), then returns their sum. The calling thread only collects texts and posts them.
 */
export async function countMessagesInWorker(
  counter: MemoizedMessageCounter,
  worker: AsyncTextCounter,
  messages: readonly Message[],
  options: WorkerCountOptions = {},
): Promise<WorkerCountResult> {
  const batchChars = options.batchChars ?? 250_000;
  const batchMessages = Math.max(1, options.batchMessages ?? 2_048);
  // Each batch knows its messages (a message listed twice is sent once) until their counts are in the
  // memo: small sets, where one set of every message would block the thread each time it grows.
  let batch: Batch = newBatch();
  const unanswered = new Set<Batch>();
  let batches = 0;
  let newlyCounted = 0;
  let done = 0;
  const inFlight: Array<Promise<void>> = [];
  const send = (sent: Batch): Promise<void> => {
    batches++;
    unanswered.add(sent);
    const texts: string[] = [];
    for (const item of sent.items) for (const t of item.texts) texts.push(t);
    return worker.countTexts(texts).then((counts) => {
      let next = 0;
      const replay: TextTokenizer = {
        name: 'replay',
        countText: (text) => {
          const n = counts[next++];
          options.onText?.(text, n);
          return n;
        },
      };
      for (const { message } of sent.items) {
        counter.remember(message, countMessageWith(replay, message));
        newlyCounted++;
      }
      unanswered.delete(sent);
      done += sent.items.length;
      options.onProgress?.(done, messages.length);
    });
  };
  const flush = async (): Promise<void> => {
    if (batch.items.length === 0) return;
    const sent = send(batch);
    sent.catch(() => undefined); // awaited below; a rejection before then is not unhandled
    inFlight.push(sent);
    batch = newBatch();
    if (inFlight.length >= 2) await inFlight.shift();
    if (options.signal?.aborted) throw new CountWorkerError('token counting was cancelled');
  };
  const queued = (message: Message): boolean => {
    if (batch.messages.has(message)) return true;
    for (const b of unanswered) if (b.messages.has(message)) return true;
    return false;
  };
  // The passes over every message give the event loop a turn every few ms (a session of 100k messages
  // already counted is otherwise one block).
  let sliceStart = performance.now();
  const pause = async (): Promise<void> => {
    if (performance.now() - sliceStart < PASS_SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
  let seen = 0;
  for (const message of messages) {
    if (++seen % PASS_CHECK_EVERY === 0) await pause();
    if (counter.peek(message) !== undefined || queued(message)) {
      done++;
      continue;
    }
    const texts: string[] = [];
    countMessageWith({ name: 'recorder', countText: (t) => (texts.push(t), 0) }, message);
    batch.items.push({ message, texts });
    batch.messages.add(message);
    for (const t of texts) batch.chars += t.length;
    if (batch.chars >= batchChars || batch.items.length >= batchMessages) await flush();
  }
  await flush();
  await Promise.all(inFlight);
  let tokens = 0;
  sliceStart = performance.now();
  // The messages there are now (as when this sum was one synchronous pass): one appended meanwhile is not in it.
  const count = messages.length;
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % PASS_CHECK_EVERY === 0) await pause();
    const m = messages[i];
    tokens += counter.peek(m) ?? counter.countMessage(m);
  }
  return { tokens, messages: count, newlyCounted, batches };
}
