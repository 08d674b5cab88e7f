import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversation';
import { CharEstimateTokenizer, MemoizedMessageCounter, type TextTokenizer } from '../../src/core/counting/tokens';
import {
  countInSegments,
  createTokenizer,
  DEFAULT_TOKENIZER,
  findLongRuns,
  GptTokenizerTokenizer,
  isTokenizerName,
  JsTiktokenTokenizer,
  LONG_RUN_CHARS,
  TOKENIZER_NAMES,
  UnknownTokenizerError,
  warmupTokenizer,
} from '../../src/core/counting/tokenizers';

const REPO = join(import.meta.dirname ?? __dirname, '..', '..');
const jsTiktoken = new JsTiktokenTokenizer();
const gptTokenizer = new GptTokenizerTokenizer();

/** Texts of the kinds an agent session carries. */
const SAMPLES: Record<string, string> = {
  prose: "The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll ship v1.2.3 tomorrow.",
  code: 'export function planRecentTurns(messages: readonly Message[], keep = 3): number {\n\treturn messages.length - keep; // TODO\n}\n',
  json: JSON.stringify(
    { type: 'tool_result', tool_use_id: 'toolu_01XyZ', content: [{ type: 'text', text: 'ok' }], n: [1, 2.5, -3e10, null, true] },
    null,
    2,
  ),
  unicode: 'Ünïcödé — “quotes”, 日本語のテキスト, 中文文本，标点。Русский текст, العربية, हिन्दी, 한국어',
  emoji: 'ship it 🚀🎉 family 👩‍👩‍👧‍👦 flag 🏳️‍🌈 skin 👍🏽 keycap 1️⃣',
  whitespace: 'a    b\t\t\tc\n\n\n\nd   \r\n  \r\n    e' + ' '.repeat(100) + 'f' + '\n'.repeat(40),
  numbers: '0 12 345 6789 1234567890 3.14159265358979 1e-7 0xDEADBEEF 2026-11-22T10:00:00Z',
  shell: '$ npm test\n> node --test\n✔ passes (12.3ms)\n✖ fails\n    at Object.<anonymous> (/work/main/src/core/plan.ts:42:13)',
  base64: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251)).toString('base64'),
  specialTokens: 'before <|endoftext|> middle <|endofprompt|> <|im_start|>user<|im_sep|> after <|endoftext',
  controlChars: 'nul\u0000bell\u0007esc\u001b[31mred\u001b[0m',
  loneSurrogates: 'a\uD800b\uDC00c\uDFFF',
};

test('every name in TOKENIZER_NAMES creates a tokenizer reporting that name', () => {
  for (const name of TOKENIZER_NAMES) {
    assert.equal(createTokenizer(name).name, name);
    assert.ok(isTokenizerName(name));
  }
  assert.ok(!isTokenizerName('tiktoken'));
});

test('DEFAULT_TOKENIZER is one of the two real o200k encoders', () => {
  assert.ok(DEFAULT_TOKENIZER === 'gpt-tokenizer' || DEFAULT_TOKENIZER === 'js-tiktoken');
});

test('createTokenizer rejects an unknown name with an error listing the known ones', () => {
  assert.throws(
    () => createTokenizer('cl100k' as never),
    (e: unknown) =>
      e instanceof UnknownTokenizerError && e.tokenizer === 'cl100k' && /js-tiktoken, gpt-tokenizer, chars\/4/.test(e.message),
  );
});

test('importing tokenizers.ts loads no encoder ranks; the first count loads only that encoder', () => {
  const script = `
    const rankModules = () => Object.keys(require.cache).filter((k) => /js-tiktoken|gpt-tokenizer/.test(k)).length;
    const m = require('./src/core/counting/tokenizers.ts');
    const js = m.createTokenizer('js-tiktoken');
    const gpt = m.createTokenizer('gpt-tokenizer');
    const afterImport = { modules: rankModules(), js: js.loaded, gpt: gpt.loaded, jsTime: js.loadTimeMs };
    const count = gpt.countText('hello world');
    const afterCount = { modules: rankModules(), js: js.loaded, gpt: gpt.loaded, gptTime: gpt.loadTimeMs, count };
    console.log(JSON.stringify({ afterImport, afterCount }));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: REPO, encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const { afterImport, afterCount } = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}');
  assert.deepEqual(afterImport, { modules: 0, js: false, gpt: false });
  assert.equal(afterCount.js, false, 'counting with gpt-tokenizer must not load js-tiktoken');
  assert.equal(afterCount.gpt, true);
  assert.ok(afterCount.modules > 0);
  assert.ok(afterCount.gptTime > 0);
  assert.equal(afterCount.count, 2);
});

test('warmup loads the ranks once: later warmups report 0 ms and keep the first load time', () => {
  for (const tokenizer of [new JsTiktokenTokenizer(), new GptTokenizerTokenizer()]) {
    tokenizer.warmup();
    assert.equal(tokenizer.loaded, true);
    const firstLoad = tokenizer.loadTimeMs;
    assert.ok(firstLoad !== undefined && firstLoad > 0);
    assert.equal(tokenizer.warmup(), 0);
    assert.equal(warmupTokenizer(tokenizer), 0);
    assert.equal(tokenizer.loadTimeMs, firstLoad);
  }
  assert.equal(warmupTokenizer(new CharEstimateTokenizer()), 0);
});

test('a second tokenizer instance shares the loaded encoder instead of parsing ranks again', () => {
  gptTokenizer.warmup();
  const another = new GptTokenizerTokenizer();
  assert.equal(another.loaded, true);
  assert.equal(another.warmup(), 0);
});

test('known o200k counts: "hello world" is 2 tokens and empty text is 0', () => {
  for (const tokenizer of [jsTiktoken, gptTokenizer]) {
    assert.equal(tokenizer.countText('hello world'), 2);
    assert.equal(tokenizer.countText(''), 0);
  }
});

test('js-tiktoken and gpt-tokenizer give identical counts on code, JSON, unicode, emoji and whitespace runs', () => {
  for (const [kind, text] of Object.entries(SAMPLES)) {
    const a = jsTiktoken.countText(text);
    const b = gptTokenizer.countText(text);
    assert.equal(a, b, `${kind}: js-tiktoken ${a} vs gpt-tokenizer ${b}`);
    assert.ok(a > 0, kind);
  }
  const all = Object.values(SAMPLES).join('\n').repeat(20);
  assert.equal(jsTiktoken.countText(all), gptTokenizer.countText(all));
});

test('special-token text such as <|endoftext|> is counted as plain text by both encoders, never rejected', () => {
  for (const tokenizer of [jsTiktoken, gptTokenizer]) {
    assert.doesNotThrow(() => tokenizer.countText('<|endoftext|>'));
    // As a special token it would be 1; as text it is several ordinary tokens.
    assert.ok(tokenizer.countText('<|endoftext|>') > 1, tokenizer.name);
  }
  assert.equal(jsTiktoken.countText(SAMPLES.specialTokens), gptTokenizer.countText(SAMPLES.specialTokens));
});

test('property: js-tiktoken and gpt-tokenizer agree on random strings', () => {
  const pieces = [
    '<|endoftext|>',
    ' ',
    '  ',
    '\n',
    '\r\n',
    '\t',
    'the',
    'The',
    "'s",
    "'LL",
    '123',
    '4567',
    '.',
    '{"a":1}',
    '語',
    '🚀',
    '👩‍💻',
    'é',
    'e\u0301',
    '\uD800',
    'A',
    'zz',
  ];
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.string({ unit: 'grapheme', maxLength: 120 }),
    fc.string({ unit: 'binary-ascii', maxLength: 200 }),
    fc.array(fc.constantFrom(...pieces), { maxLength: 80 }).map((parts) => parts.join('')),
  );
  fc.assert(
    fc.property(text, (s) => jsTiktoken.countText(s) === gptTokenizer.countText(s)),
    { numRuns: 400 },
  );
});

test('long runs of one character class count in bounded time with the exact library counts', () => {
  // Counts measured once with gpt-tokenizer on the whole, unchunked run (6 to 54 s each there).
  const runs: Array<[string, string, number]> = [
    ['letters', 'a', 12_500],
    ['spaces', ' ', 782],
    ['punctuation', '=', 1_562],
    ['newlines', '\n', 6_250],
    ['CJK', '語', 100_000],
  ];
  for (const [kind, ch, expected] of runs) {
    const text = ch.repeat(100_000);
    const started = performance.now();
    const count = gptTokenizer.countText(text);
    const elapsed = performance.now() - started;
    assert.equal(count, expected, kind);
    assert.ok(elapsed < 2_000, `${kind}: ${Math.round(elapsed)} ms`);
  }
  // js-tiktoken needs ~190 s for 50,000 unchunked spaces; chunked it must stay interactive.
  const started = performance.now();
  assert.equal(jsTiktoken.countText(' '.repeat(20_000)), gptTokenizer.countText(' '.repeat(20_000)));
  assert.ok(performance.now() - started < 5_000);
});

test('countInSegments hands text without long runs to the encoder whole', () => {
  const seen: string[] = [];
  const text = SAMPLES.code.repeat(50) + SAMPLES.unicode.repeat(20);
  assert.equal(
    countInSegments(text, (s) => (seen.push(s), 1)),
    1,
  );
  assert.deepEqual(seen, [text]);
  assert.deepEqual(findLongRuns(text), []);
});

test('countInSegments cuts long runs into chunks of at most LONG_RUN_CHARS and loses no text', () => {
  const text = 'head ' + 'x'.repeat(1000) + ' mid ' + ' '.repeat(600) + 'tail' + '-'.repeat(300) + '42';
  const seen: string[] = [];
  countInSegments(text, (s) => (seen.push(s), s.length));
  assert.equal(seen.join(''), text);
  for (const s of seen) assert.ok(s.length <= LONG_RUN_CHARS, `segment of ${s.length}`);
  assert.deepEqual(
    findLongRuns(text).map(([start, end]) => text.slice(start, end)),
    ['x'.repeat(1000), ' '.repeat(601), '-'.repeat(300)], // the space after "mid" joins the run
  );
});

test('findLongRuns ignores digit runs, which the encoder already splits into groups of three', () => {
  assert.deepEqual(findLongRuns('1'.repeat(5000)), []);
  assert.deepEqual(findLongRuns('a1'.repeat(5000)), []);
});

test('countInSegments never splits a surrogate pair when chunking a run of emoji', () => {
  const text = '🚀'.repeat(LONG_RUN_CHARS * 2) + 'x' + '𝔸'.repeat(LONG_RUN_CHARS + 3);
  const seen: string[] = [];
  countInSegments(text, (s) => (seen.push(s), 0));
  assert.equal(seen.join(''), text);
  for (const s of seen) assert.ok(isWellFormed(s), `segment splits a surrogate pair: ${JSON.stringify(s.slice(0, 4))}`);
  assert.equal(jsTiktoken.countText(text), gptTokenizer.countText(text));
});

/** A tokenizer that records every text it is asked to count. */
class SpyTokenizer implements TextTokenizer {
  readonly name = 'spy';
  readonly counted: string[] = [];
  countText(text: string): number {
    this.counted.push(text);
    return text.length;
  }
}

function message(id: string, text: string, role: Message['role'] = 'user'): Message {
  return { id, role, content: text };
}

test('MemoizedMessageCounter counts only the new messages when a grown conversation is re-counted', () => {
  const spy = new SpyTokenizer();
  const counter = new MemoizedMessageCounter(spy);
  const history = Array.from({ length: 50 }, (_, i) => message(`m${i}`, `message number ${i}`, i % 2 ? 'assistant' : 'user'));
  const first = counter.countMessages(history);
  assert.equal(spy.counted.length, 50);

  const grown = [...history, message('m50', 'a new prompt'), message('m51', 'a new answer', 'assistant')];
  const second = counter.countMessages(grown);
  assert.equal(spy.counted.length, 52, 're-counting must tokenize only the two new messages');
  assert.deepEqual(spy.counted.slice(50), ['a new prompt', 'a new answer']);
  assert.equal(second, first + counter.countMessage(grown[50]) + counter.countMessage(grown[51]));
  assert.equal(spy.counted.length, 52);
});

test('MemoizedMessageCounter over the default tokenizer counts a tool exchange consistently', () => {
  const counter = new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER));
  const exchange: Message[] = [
    { id: 'u', role: 'user', content: 'list files' },
    { id: 'a', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: { path: '.' } }] },
    { id: 'r', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts\nb.ts <|endoftext|>' }] },
  ];
  const total = counter.countMessages(exchange);
  assert.equal(
    total,
    exchange.reduce((sum, m) => sum + counter.countMessage(m), 0),
  );
  assert.ok(total > 10);
});

function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}
