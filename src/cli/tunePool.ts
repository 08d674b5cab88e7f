// The worker threads of `splitpoint tune`: `jobs` workers (tuneWorker.ts), each given one task at a time.
// A free worker takes the first waiting task for a session it already imported, else the first waiting
// task, so each session is imported and calibrated by as few workers as possible.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TuneReplayRow, TuneReply, TuneTask } from './tuneReplay';

/** A task failed: badInput when the session file could not be read or imported (exit 2). */
export class TuneTaskError extends Error {
  constructor(
    message: string,
    readonly badInput: boolean,
  ) {
    super(message);
    this.name = 'TuneTaskError';
  }
}

/** Where the worker script is: dist/tuneWorker.js beside the bundle, src/cli/tuneWorker.ts under tsx. */
export function defaultTuneWorkerPath(): string {
  const dir = typeof __filename === 'string' ? dirname(__filename) : process.cwd();
  const candidates = [join(dir, 'tuneWorker.js'), join(dir, 'tuneWorker.ts')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0];
}

interface Slot {
  worker: Worker;
  files: Set<string>;
  busy: { task: TuneTask; resolve: (rows: TuneReplayRow[]) => void; reject: (e: Error) => void } | null;
}

interface Waiting {
  task: TuneTask;
  resolve: (rows: TuneReplayRow[]) => void;
  reject: (e: Error) => void;
}

export class TunePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 1;
  private failed: Error | null = null;

  constructor(jobs: number, workerPath = defaultTuneWorkerPath()) {
    if (!existsSync(workerPath)) throw new Error(`the tune worker ${workerPath} does not exist (run npm run build)`);
    for (let i = 0; i < jobs; i++) {
      const worker = path(workerPath);
      const slot: Slot = { worker, files: new Set(), busy: null };
      worker.on('message', (reply: TuneReply) => this.settle(slot, reply));
      worker.on('error', (e) => this.fail(new Error(`a tune worker failed: ${e.message}`)));
      worker.on('exit', (code) => {
        if (slot.busy) this.fail(new Error(`a tune worker exited (code ${code})`));
      });
      this.slots.push(slot);
    }
  }

  /** Replays `configs` on `file` in some worker. */
  run(file: string, configs: TuneTask['configs']): Promise<TuneReplayRow[]> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { taskId: this.nextId++, file, configs }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      let i = this.queue.findIndex((w) => slot.files.has(w.task.file));
      if (i < 0) i = 0;
      const [w] = this.queue.splice(i, 1);
      slot.busy = w;
      slot.files.add(w.task.file);
      slot.worker.postMessage(w.task);
    }
  }

  private settle(slot: Slot, reply: TuneReply): void {
    const busy = slot.busy;
    slot.busy = null;
    if (busy && busy.task.taskId === reply.taskId) {
      if (reply.ok) busy.resolve(reply.rows);
      else busy.reject(new TuneTaskError(reply.error, reply.badInput));
    }
    this.dispatch();
  }

  private fail(e: Error): void {
    this.failed ??= e;
    for (const slot of this.slots) {
      slot.busy?.reject(e);
      slot.busy = null;
    }
    for (const w of this.queue.splice(0)) w.reject(e);
  }
}

/** The TypeScript source (tests, the bench under tsx) is loaded through tsx's require hook. */
function path(workerPath: string): Worker {
  return workerPath.endsWith('.ts')
    ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(workerPath)});`, { eval: true })
    : new Worker(workerPath);
}
