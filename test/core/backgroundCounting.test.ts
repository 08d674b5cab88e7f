import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversation';
import {
  CountAbortedError,
  countMessagesInBackground,
  DEFAULT_PIECE_CHARS,
  isSafeCut,
  splitAtSafeBoundaries,
} from '../../src/core/counting/backgroundCounting';
import { GptTokenizerTokenizer, JsTiktokenTokenizer } from '../../src/core/counting/tokenizers';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { syntheticSession } from '../helpers/synthetic';

const gpt = new GptTokenizerTokenizer();
const tiktoken = new JsTiktokenTokenizer();

/** Fragments that meet at line starts in every way the o200k pre-tokenizer cares about. */
const FRAGMENTS = [
  '\n',
  '\n',
  '\n',
  '\r\n',
  '\n\n',
  ' ',
  '  ',
  '     ',
  '\t',
  '\v',
  '\u3000',
  '/',
  '//',
  '*/',
  '/*',
  '}',
  '{',
  ');',
  ':',
  "'s",
  "'",
  '"',
  '.',
  '-',
  '+',
  'foo',
  'Bar',
  'BAZ',
  'x',
  '123',
  '4567',
  'é',
  'Ünï',
  '日本語',
  '中文',
  '🚀',
  '\u00a0',
  '\u2028',
  '<|endoftext|>',
  '\\n',
  '#',
];
const codeLike = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 400 }).map((parts) => parts.join(''));

function sumOfPieces(tokenizer: { countText(t: string): number }, text: string, maxChars: number): number {
  return splitAtSafeBoundaries(text, maxChars).reduce((n, piece) => n + tokenizer.countText(piece), 0);
}

test('splitAtSafeBoundaries: the pieces join back to the text, and every cut is a safe line start', () => {
  fc.assert(
    fc.property(codeLike, fc.integer({ min: 1, max: 64 }), (text, maxChars) => {
      const pieces = splitAtSafeBoundaries(text, maxChars);
      assert.equal(pieces.join(''), text);
      let at = 0;
      for (const piece of pieces.slice(0, -1)) {
        at += piece.length;
        assert.ok(isSafeCut(text, at), `cut at ${at} is not a safe line start: ${JSON.stringify(text.slice(at - 3, at + 3))}`);
      }
    }),
    { numRuns: 500 },
  );
});

test('splitAtSafeBoundaries: pieces stay within maxChars whenever the text has a line break to cut at', () => {
  // A `cat -n` read: every line starts with padding, then a tab.
  const text = Array.from({ length: 2_000 }, (_, i) => `${String(i + 1).padStart(6)}\tconst value${i} = compute(${i});`).join('\n');
  const pieces = splitAtSafeBoundaries(text, 1_000);
  assert.ok(pieces.length > 50);
  assert.ok(pieces.every((p) => p.length <= 1_000));
  // One long line has no cut: it stays whole.
  assert.deepEqual(splitAtSafeBoundaries('x'.repeat(5_000), 1_000), ['x'.repeat(5_000)]);
});

test('counting the pieces gives exactly the count of the whole text (gpt-tokenizer)', () => {
  fc.assert(
    fc.property(codeLike, fc.integer({ min: 1, max: 48 }), (text, maxChars) => {
      assert.equal(sumOfPieces(gpt, text, maxChars), gpt.countText(text));
    }),
    { numRuns: 600 },
  );
});

test('counting the pieces gives exactly the count of the whole text (js-tiktoken)', () => {
  fc.assert(
    fc.property(codeLike, fc.integer({ min: 1, max: 48 }), (text, maxChars) => {
      assert.equal(sumOfPieces(tiktoken, text, maxChars), tiktoken.countText(text));
    }),
    { numRuns: 200 },
  );
});

test('counting the pieces is exact on long runs too (the long-run guard finds the same runs)', () => {
  const text = [
    'a'.repeat(700),
    ' '.repeat(600) + '\n',
    '-'.repeat(900),
    '\nfoo',
    '日'.repeat(300),
    '\n/x\n',
    'y',
    ' '.repeat(200),
    ' '.repeat(300) + 'z',
    '\t'.repeat(255) + 'w',
  ].join('\n');
  for (const maxChars of [5, 64, 300, 1_000]) assert.equal(sumOfPieces(gpt, text, maxChars), gpt.countText(text));
});

test('the background count equals countMessages and memoizes every message', async () => {
  const messages = syntheticSession({ messages: 300, seed: 5 });
  const reference = new MemoizedMessageCounter(gpt).countMessages(messages);
  const counter = new MemoizedMessageCounter(gpt);
  const result = await countMessagesInBackground(counter, messages, { sliceMs: 1, pieceChars: 2_000 });
  assert.equal(result.tokens, reference);
  assert.equal(result.messages, messages.length);
  assert.equal(result.newlyCounted, messages.length);
  assert.ok(messages.every((m) => counter.peek(m) !== undefined));
  assert.equal(counter.countMessages(messages), reference);
  assert.ok(result.busyMs <= result.elapsedMs + 1e-6);
});

test('the background count is exact with chars/4 and with js-tiktoken as well', async () => {
  const messages = syntheticSession({ messages: 40, seed: 9 });
  for (const tokenizer of [new CharEstimateTokenizer(), tiktoken]) {
    const reference = new MemoizedMessageCounter(tokenizer).countMessages(messages);
    const result = await countMessagesInBackground(new MemoizedMessageCounter(tokenizer), messages, { pieceChars: 500 });
    assert.equal(result.tokens, reference, tokenizer.name);
  }
});

test('already memoized messages are not counted again', async () => {
  const messages = syntheticSession({ messages: 60, seed: 2 });
  const counter = new MemoizedMessageCounter(gpt);
  const first = counter.countMessages(messages.slice(0, 50));
  const result = await countMessagesInBackground(counter, messages);
  assert.equal(result.newlyCounted, 10);
  assert.equal(result.tokens, first + new MemoizedMessageCounter(gpt).countMessages(messages.slice(50)));
  assert.equal(result.rankLoadMs, 0, 'the ranks were already loaded');
});

test('the count yields to the event loop between slices, so other work runs meanwhile', async () => {
  const text = Array.from({ length: 20_000 }, (_, i) => `${String(i).padStart(6)}\tconst value${i} = compute(${i}, "item ${i}");`).join(
    '\n',
  );
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: 'read it' },
    { id: 'a1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'big.ts' } }] },
    { id: 'u2', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] },
  ];
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  let yields = 0;
  const counter = new MemoizedMessageCounter(gpt);
  const result = await countMessagesInBackground(counter, messages, {
    sliceMs: 0,
    yieldToEventLoop: () => new Promise<void>((resolve) => setImmediate(() => (yields++, resolve()))),
  });
  clearInterval(timer);
  assert.equal(result.tokens, new MemoizedMessageCounter(gpt).countMessages(messages));
  // Every piece of the big text ended a slice.
  assert.ok(yields >= Math.floor(text.length / DEFAULT_PIECE_CHARS), `${yields} yields`);
  assert.equal(result.slices, yields + 1);
  assert.ok(ticks > 0, 'a timer ran while the count was in progress');
});

test('reports progress after each slice and ends at the total', async () => {
  const messages = syntheticSession({ messages: 80, seed: 3 });
  const seen: number[] = [];
  const result = await countMessagesInBackground(new MemoizedMessageCounter(gpt), messages, {
    sliceMs: 0,
    onProgress: (p) => seen.push(p.done),
  });
  assert.ok(seen.length > 1);
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
  );
  assert.equal(seen[seen.length - 1], messages.length);
  assert.ok(result.tokens > 0);
});

test('an abort stops the count between slices; what was counted stays memoized', async () => {
  const messages = syntheticSession({ messages: 200, seed: 4 });
  const counter = new MemoizedMessageCounter(gpt);
  const controller = new AbortController();
  await assert.rejects(
    countMessagesInBackground(counter, messages, {
      sliceMs: 0,
      signal: controller.signal,
      onProgress: (p) => p.done >= 20 && controller.abort(),
    }),
    (e: unknown) => e instanceof CountAbortedError && e.done >= 20 && e.done < messages.length,
  );
  assert.ok(counter.peek(messages[0]) !== undefined);
  assert.equal(counter.peek(messages[messages.length - 1]), undefined);
  await assert.rejects(countMessagesInBackground(counter, messages, { signal: AbortSignal.abort() }), CountAbortedError);
});
