// Token counting for the extension host, which must never wait: the encoder lives on a worker thread
// (WorkerTokenizer), sessions are counted there asynchronously (prefill fills the message memo), and
// the synchronous engine then finds almost every count in the memo or the short-text cache. If the
// worker cannot run, counting falls back to this thread (with a warning in the log).
import {
  CachingTextTokenizer,
  countMessagesInWorker,
  createTokenizer,
  DEFAULT_TOKENIZER,
  errorMessage,
  MemoizedMessageCounter,
  WorkerTokenizer,
  type AsyncTextCounter,
  type Disposable,
  type Message,
  type TextTokenizer,
} from '../../core';

/** Where counting problems are reported (the controller's log). */
export interface CountingLog {
  warn(message: string): void;
  error(message: string): void;
}

export interface HostCountingOptions {
  /** 'worker' (default): count on a worker thread; 'in-thread': the old synchronous counting (tests, the bench's baseline). */
  mode?: 'worker' | 'in-thread';
  /** The worker's script (default: dist/countWorker.js beside the bundle). */
  workerPath?: string;
}

export class HostCounting implements Disposable {
  readonly tokenizer: CachingTextTokenizer;
  readonly counter: MemoizedMessageCounter;
  private readonly worker: WorkerTokenizer | undefined;
  private readonly async: AsyncTextCounter;
  private counting = 0;

  constructor(
    private readonly log: CountingLog,
    options: HostCountingOptions = {},
  ) {
    let inner: TextTokenizer;
    if (options.mode === 'in-thread') {
      inner = createTokenizer(DEFAULT_TOKENIZER);
    } else {
      this.worker = new WorkerTokenizer({
        tokenizer: DEFAULT_TOKENIZER,
        workerPath: options.workerPath,
        fallback: () => createTokenizer(DEFAULT_TOKENIZER),
        onFallback: (reason) => log.warn(`Token counting runs on the extension host thread (slower, may pause the editor): ${reason}`),
      });
      inner = this.worker;
    }
    // Short texts (placeholders, prompts, tool names) repeat endlessly: remember their counts.
    this.tokenizer = new CachingTextTokenizer(inner);
    this.counter = new MemoizedMessageCounter(this.tokenizer);
    this.async = this.worker ?? { countTexts: (texts) => Promise.resolve(texts.map((t) => inner.countText(t))) };
  }

  /** True when a synchronous count is cheap: the encoder is loaded and no session is being counted. */
  get settled(): boolean {
    return this.tokenizer.loaded && this.counting === 0;
  }

  /**
   * Counts the message lists `lists()` returns (read once the encoder is loaded) on the worker, filling the
   * memo, so the synchronous engine finds them counted. Failures are logged; the engine then counts what it needs.
   */
  async prefill(lists: () => ReadonlyArray<readonly Message[]>): Promise<void> {
    this.counting++;
    try {
      if (this.worker) await this.worker.ready;
      else this.tokenizer.warmup();
      for (const messages of lists()) {
        await countMessagesInWorker(this.counter, this.async, messages, { onText: (t, n) => this.tokenizer.remember(t, n) });
      }
    } catch (e) {
      this.log.error(`Token counting failed: ${errorMessage(e)}`);
    } finally {
      this.counting--;
    }
  }

  /** Counts texts on the worker (on this thread only when the worker cannot run). */
  countTexts(texts: readonly string[]): Promise<number[]> {
    return this.async.countTexts(texts);
  }

  dispose(): void {
    this.worker?.dispose();
  }
}
