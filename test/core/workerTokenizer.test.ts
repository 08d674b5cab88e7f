// The counting worker (src/core/counting/workerTokenizer.ts + countWorker.ts): the same counts as the in-thread
// encoder (synchronously and asynchronously), errors that reach the caller with what went wrong, and a
// worker that stops when disposed or when it dies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { importSession } from '../../src/core/importers';
import { CachingTextTokenizer } from '../../src/core/counting/textCountCache';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { countMessagesInWorker, CountWorkerError, WorkerTokenizer } from '../../src/core/counting/workerTokenizer';
import { syntheticSession } from '../helpers/synthetic';

const inThread = createTokenizer('gpt-tokenizer');

const VARIED = [
  '',
  'a',
  'hello world',
  'héllo wörld, ça va? ñandú',
  '日本語のテキストと中文文本',
  'emoji 🎉👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵',
  'mixed\r\nline\nendings\r\n\n\n',
  '<|endoftext|> is plain text here',
  ' '.repeat(5_000),
  'あ'.repeat(3_000),
  '{"json": [1, 2, 3], "nested": {"k": "v"}}\n'.repeat(2_000),
  `function f(x) {\n  return x * 2;\n}\n`.repeat(3_000),
  '\u0000\u0001 control \u200b zero-width \ud83d lone surrogate',
];

test('the worker counts exactly like the in-thread encoder, synchronously and asynchronously', async () => {
  const worker = new WorkerTokenizer({ tokenizer: 'gpt-tokenizer' });
  try {
    assert.equal(worker.name, 'gpt-tokenizer');
    assert.ok((await worker.ready) > 0, 'the worker reports how long it took to load the ranks');
    assert.equal(worker.loaded, true);
    const expected = VARIED.map((t) => inThread.countText(t));
    assert.deepEqual(await worker.countTexts(VARIED), expected);
    assert.deepEqual(
      VARIED.map((t) => worker.countText(t)),
      expected,
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { maxLength: 8 }), async (texts) => {
        const want = texts.map((t) => inThread.countText(t));
        assert.deepEqual(await worker.countTexts(texts), want);
        if (texts.length > 0) assert.equal(worker.countText(texts[0]), want[0]);
      }),
      { numRuns: 150 },
    );
  } finally {
    worker.dispose();
  }
});

test('js-tiktoken on the worker gives js-tiktoken counts', async () => {
  const worker = new WorkerTokenizer({ tokenizer: 'js-tiktoken' });
  try {
    const tiktoken = createTokenizer('js-tiktoken');
    const texts = VARIED.slice(0, 8);
    assert.deepEqual(
      await worker.countTexts(texts),
      texts.map((t) => tiktoken.countText(t)),
    );
  } finally {
    worker.dispose();
  }
});

test('a synchronous count before the worker is ready waits for it and is right', () => {
  const worker = new WorkerTokenizer();
  try {
    assert.equal(worker.loaded, false);
    assert.equal(worker.warmup(), 0, 'warmup never blocks: the worker loads on its own thread');
    assert.equal(worker.countText('counted before ready'), inThread.countText('counted before ready'));
  } finally {
    worker.dispose();
  }
});

test('countMessagesInWorker fills the memo with exactly what countMessage gives, and remembers short texts', async () => {
  const worker = new WorkerTokenizer();
  try {
    const real = importSession(readFileSync('test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl', 'utf8'), 'a.jsonl').messages;
    for (const messages of [syntheticSession({ messages: 300, seed: 7 }), real]) {
      const reference = new MemoizedMessageCounter(inThread);
      const cache = new CachingTextTokenizer(worker);
      const counter = new MemoizedMessageCounter(cache);
      // Already-memoized messages are not sent again.
      counter.countMessage(messages[0]);
      const progress: number[] = [];
      const r = await countMessagesInWorker(counter, worker, messages, {
        batchChars: 20_000,
        onText: (t, n) => cache.remember(t, n),
        onProgress: (done) => progress.push(done),
      });
      assert.equal(r.tokens, reference.countMessages(messages));
      assert.equal(r.newlyCounted, messages.length - 1);
      assert.ok(r.batches > 1, `several batches (${r.batches})`);
      assert.equal(progress.at(-1), messages.length);
      for (const m of messages) assert.equal(counter.peek(m), reference.countMessage(m), `message ${m.id}`);
      assert.ok(cache.stats.entries > 0, 'short texts were remembered');
    }
  } finally {
    worker.dispose();
  }
});

test('errors in the worker reach the caller, naming what was wrong', async () => {
  const worker = new WorkerTokenizer();
  try {
    await assert.rejects(worker.countTexts(['fine', 42 as unknown as string]), (e: unknown) => {
      assert.ok(e instanceof CountWorkerError);
      assert.equal(e.remoteName, 'TypeError');
      assert.match(e.message, /text 1 is number, not a string/);
      return true;
    });
    // The worker still counts afterwards.
    assert.deepEqual(await worker.countTexts(['fine']), [inThread.countText('fine')]);
  } finally {
    worker.dispose();
  }

  const unknown = new WorkerTokenizer({ tokenizer: 'no-such-encoder' as 'gpt-tokenizer' });
  await assert.rejects(unknown.ready, /unknown tokenizer "no-such-encoder"/);
  assert.throws(() => unknown.countText('x'), /unknown tokenizer "no-such-encoder"/);
  await assert.rejects(unknown.countTexts(['x']), CountWorkerError);
  unknown.dispose();

  const missing = new WorkerTokenizer({ workerPath: join(tmpdir(), 'no-such-count-worker.js') });
  await assert.rejects(missing.ready, /no-such-count-worker\.js does not exist/);
  assert.throws(() => missing.countText('x'), CountWorkerError);
});

test('a worker that dies fails its pending calls; with a fallback, counting goes on in the thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'count-worker-'));
  try {
    const dying = join(dir, 'dying.js');
    writeFileSync(dying, "setTimeout(() => process.exit(3), 50); require('node:worker_threads').parentPort.on('message', () => {});\n");
    const bare = new WorkerTokenizer({ workerPath: dying });
    const pending = bare.countTexts(['never answered']);
    await assert.rejects(pending, /exited \(code 3\)/);
    await assert.rejects(bare.ready, /exited \(code 3\)/);
    assert.throws(() => bare.countText('x'), /exited \(code 3\)/);

    const reasons: string[] = [];
    const withFallback = new WorkerTokenizer({
      workerPath: dying,
      fallback: () => createTokenizer('gpt-tokenizer'),
      onFallback: (r) => reasons.push(r),
    });
    assert.equal(await withFallback.ready, 0);
    assert.deepEqual(reasons, ['the token-counting worker exited (code 3)']);
    assert.equal(withFallback.loaded, true);
    assert.equal(withFallback.countText('still counted'), inThread.countText('still counted'));
    assert.deepEqual(await withFallback.countTexts(['still counted']), [inThread.countText('still counted')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('dispose stops the worker: pending and later calls fail, and disposing twice is harmless', async () => {
  const worker = new WorkerTokenizer();
  await worker.ready;
  const pending = worker.countTexts(['x'.repeat(200_000)]);
  worker.dispose();
  worker.dispose();
  await assert.rejects(pending, /the token counter was disposed/);
  await assert.rejects(worker.countTexts(['y']), /disposed/);
  assert.throws(() => worker.countText('y'), /disposed/);
  assert.equal(worker.loaded, false);
});
