// The token-counting worker thread (node:worker_threads): loads an o200k encoder's ranks and counts
// texts for WorkerTokenizer (workerTokenizer.ts), so neither the rank load (one synchronous step of
// 0.15-0.3 s) nor a long count ever runs on the thread that started it (the extension host).
// esbuild bundles this file as dist/countWorker.js beside the extension and the CLI.
//
// Two channels, both carrying { id, texts } and answered with { id, counts } or { id, error }:
//  - the worker's parentPort: asynchronous batches. Long texts are counted in pieces cut where the
//    o200k count is exact (splitAtSafeBoundaries), and the sync channel is polled between pieces, so
//    a synchronous request never waits behind a whole batch;
//  - `syncPort` (a MessagePort from workerData): synchronous requests. The host posts one and sleeps
//    on `signal` (Atomics.wait); the worker answers on the port, then sets the signal and wakes it.
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { DEFAULT_PIECE_CHARS, splitAtSafeBoundaries } from './backgroundCounting';
import { errorMessage } from '../base/errors';
import { createTokenizer, warmupTokenizer, type TokenizerName } from './tokenizers';
import type { TextTokenizer } from './tokens';

/** A request on either channel. */
export interface CountRequest {
  id: number;
  texts: unknown;
}

/** The worker's answer to one request. */
export type CountReply = { id: number; counts: number[] } | { id: number; error: { name: string; message: string } };

/** What the worker tells its parent once, after loading the encoder. */
export type WorkerStatus = { type: 'ready'; loadMs: number } | { type: 'failed'; error: { name: string; message: string } };

export interface CountWorkerData {
  tokenizer: TokenizerName;
  syncPort: MessagePort;
  /** Int32Array over a SharedArrayBuffer: [0] is set to 1 when a sync reply has been posted. */
  signal: Int32Array;
}

/** How often (ms) a batch checks for a waiting synchronous request. */
const POLL_MS = 2;

const PIECEWISE_EXACT = new Set(['gpt-tokenizer', 'js-tiktoken']);

function serialize(e: unknown): { name: string; message: string } {
  return { name: e instanceof Error ? e.name : 'Error', message: errorMessage(e) };
}

function checkTexts(texts: unknown): string[] {
  if (!Array.isArray(texts)) throw new TypeError(`expected an array of texts, got ${typeof texts}`);
  texts.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`text ${i} is ${t === null ? 'null' : typeof t}, not a string`);
  });
  return texts as string[];
}

function start(data: CountWorkerData): void {
  const port = parentPort;
  if (!port) throw new Error('countWorker.ts runs as a worker thread only');
  const { syncPort, signal } = data;
  let tokenizer: TextTokenizer;
  try {
    tokenizer = createTokenizer(data.tokenizer);
    const loadMs = warmupTokenizer(tokenizer);
    port.postMessage({ type: 'ready', loadMs } satisfies WorkerStatus);
  } catch (e) {
    port.postMessage({ type: 'failed', error: serialize(e) } satisfies WorkerStatus);
    return;
  }
  const splittable = PIECEWISE_EXACT.has(tokenizer.name);

  const answerSync = (request: CountRequest): void => {
    let reply: CountReply;
    try {
      reply = { id: request.id, counts: checkTexts(request.texts).map((t) => tokenizer.countText(t)) };
    } catch (e) {
      reply = { id: request.id, error: serialize(e) };
    }
    syncPort.postMessage(reply);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  let lastPoll = performance.now();
  const poll = (): void => {
    const now = performance.now();
    if (now - lastPoll < POLL_MS) return;
    lastPoll = now;
    for (let m = receiveMessageOnPort(syncPort); m; m = receiveMessageOnPort(syncPort)) answerSync(m.message as CountRequest);
  };
  const countLong = (text: string): number => {
    if (!splittable || text.length <= DEFAULT_PIECE_CHARS) return tokenizer.countText(text);
    let sum = 0;
    for (const piece of splitAtSafeBoundaries(text, DEFAULT_PIECE_CHARS)) {
      sum += tokenizer.countText(piece);
      poll();
    }
    return sum;
  };

  syncPort.on('message', (request: CountRequest) => answerSync(request));
  port.on('message', (request: CountRequest) => {
    let reply: CountReply;
    try {
      const texts = checkTexts(request.texts);
      const counts = new Array<number>(texts.length);
      for (let i = 0; i < texts.length; i++) {
        counts[i] = countLong(texts[i]);
        poll();
      }
      reply = { id: request.id, counts };
    } catch (e) {
      reply = { id: request.id, error: serialize(e) };
    }
    port.postMessage(reply);
  });
}

if (parentPort && (workerData as Partial<CountWorkerData> | null)?.syncPort) start(workerData as CountWorkerData);
