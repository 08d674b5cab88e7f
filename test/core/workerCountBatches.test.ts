// countMessagesInWorker's batches stay small whatever the session (a bounded number of messages each, a
// message listed twice sent once even while its batch is still on its way), and MemoizedMessageCounter's
// memo, kept in several WeakMaps for huge sessions, answers exactly as one memo would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { CharEstimateTokenizer, MESSAGE_OVERHEAD_TOKENS, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { countMessagesInWorker, type AsyncTextCounter } from '../../src/core/counting/workerTokenizer';
import { syntheticSession } from '../helpers/synthetic';

const chars = new CharEstimateTokenizer();

/** Counts like `chars`, answering each batch after a few ms (so batches are in flight together), and keeps every batch. */
function slowCounter(): AsyncTextCounter & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    countTexts: (texts) => {
      batches.push([...texts]);
      return new Promise((resolve) => setTimeout(() => resolve(texts.map((t) => chars.countText(t))), 3));
    },
  };
}

function tiny(n: number): Message[] {
  return Array.from({ length: n }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `hi ${i}` }) as Message);
}

test('batches hold at most batchMessages messages (default 2,048), even when their texts are short', async () => {
  const messages = tiny(5_000);
  const reference = new MemoizedMessageCounter(chars).countMessages(messages);
  for (const [batchMessages, expected] of [
    [undefined, 2_048],
    [100, 100],
  ] as const) {
    const worker = slowCounter();
    const counter = new MemoizedMessageCounter(chars);
    const r = await countMessagesInWorker(counter, worker, messages, { batchMessages });
    assert.equal(r.tokens, reference);
    assert.equal(r.newlyCounted, messages.length);
    // One text per message here, so a batch's texts are its messages.
    assert.ok(
      worker.batches.every((b) => b.length <= expected),
      `largest batch ${Math.max(...worker.batches.map((b) => b.length))}`,
    );
    assert.equal(r.batches, Math.ceil(messages.length / expected));
  }
});

test('a message listed again while its batch is unanswered is sent once, and the counts are exact', async () => {
  const base = syntheticSession({ messages: 400, seed: 5 });
  // Each message again 3 and 20 messages later: in the same batch, and in the next one while the first is in flight.
  const listed: Message[] = [];
  base.forEach((m, i) => {
    listed.push(m);
    if (i >= 3) listed.push(base[i - 3]);
    if (i >= 20) listed.push(base[i - 20]);
  });
  const worker = slowCounter();
  const counter = new MemoizedMessageCounter(chars);
  const progress: number[] = [];
  const r = await countMessagesInWorker(counter, worker, listed, { batchMessages: 16, onProgress: (done) => progress.push(done) });
  const reference = new MemoizedMessageCounter(chars);
  assert.equal(r.tokens, reference.countMessages(listed));
  assert.equal(r.newlyCounted, base.length);
  assert.ok(r.batches > 2, `several batches (${r.batches})`);
  const expectedTexts: string[] = [];
  for (const m of base) {
    assert.equal(counter.peek(m), reference.countMessage(m), m.id);
  }
  const sent = worker.batches.flat();
  const perMessage = new MemoizedMessageCounter({ name: 'texts', countText: (t) => (expectedTexts.push(t), 0) });
  perMessage.countMessages(base);
  assert.deepEqual(sent, expectedTexts, 'each message’s texts were sent once, in order');
  assert.equal(progress.at(-1), listed.length);
});

test('the memo, in WeakMaps picked by message id, answers as one memo would for 150,000 messages', () => {
  const messages = tiny(150_000);
  // Copies with the same id are other keys: counted on their own.
  const copies = messages.slice(0, 50).map((m) => ({ ...m, content: `${m.content as string} and more words` }));
  let asked = 0;
  const counter = new MemoizedMessageCounter({ name: 'chars/4', countText: (t) => (asked++, chars.countText(t)) });
  const total = counter.countMessages(messages);
  assert.equal(asked, messages.length);
  let expected = 0;
  for (const m of messages) {
    const n = chars.countText(m.content as string) + MESSAGE_OVERHEAD_TOKENS;
    expected += n;
    assert.equal(counter.peek(m), n, m.id);
  }
  assert.equal(total, expected);
  for (const c of copies) assert.equal(counter.peek(c), undefined, `copy of ${c.id}`);
  assert.equal(
    counter.countMessages(copies),
    copies.reduce((sum, c) => sum + chars.countText(c.content) + MESSAGE_OVERHEAD_TOKENS, 0),
  );
  // Counted again: every count comes from the memo.
  asked = 0;
  assert.equal(counter.countMessages(messages), total);
  assert.equal(asked, 0);
  // A count remembered again replaces the former one; a message without an id is memoized too.
  counter.remember(messages[1], 12_345);
  assert.equal(counter.countMessage(messages[1]), 12_345);
  const noId = { role: 'user', content: 'no id here' } as unknown as Message;
  assert.equal(counter.countMessage(noId), chars.countText('no id here') + MESSAGE_OVERHEAD_TOKENS);
  assert.equal(counter.peek(noId), chars.countText('no id here') + MESSAGE_OVERHEAD_TOKENS);
});
