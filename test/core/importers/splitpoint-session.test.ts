// Splitpoint JSONL version 2: a whole imported session (archived history, recorded compactions, current
// context, the recording's window, model and warnings) written and read back without losing anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  importSession,
  ImportError,
  serializeImportResult,
  type ImportResult,
  type Message,
  type RecordedCompaction,
} from '../../../src/core';
import { serializeSplitpointJsonl, serializeSplitpointSession, type SplitpointSession } from '../../../src/core/importers';

const user = (id: string, text: string, extra: Partial<Message> = {}): Message => ({ id, role: 'user', content: text, ...extra });
const assistant = (id: string, text: string, extra: Partial<Message> = {}): Message => ({ id, role: 'assistant', content: text, ...extra });
const usage = (input: number, cacheRead = 0, model = 'claude-opus-4-5') => ({
  inputTokens: input,
  cacheReadTokens: cacheRead,
  cacheCreationTokens: 7,
  outputTokens: 42,
  model,
});

/** Two compactions, Codex-style: the replacement history keeps a user message of the context it replaced. */
function codexLikeSession(): SplitpointSession {
  const p1 = user('p1', 'Fix the export bug', { createdAt: 1_700_000_000_000 });
  const a1 = assistant('a1', 'Looking.', { usage: usage(1200, 300) });
  const cmd = user('c1', '<command-name>/clear</command-name>', { artefact: 'command' });
  const p2 = user('p2', 'Now add a test');
  const a2 = assistant('a2', 'Added.', { usage: usage(10, 2400) });
  const s1 = user('s1', 'Summary of the work so far', { synthetic: 'summary' });
  const p3 = user('p3', 'And the docs?');
  const a3 = assistant('a3', 'Done.', { usage: usage(50, 900, 'gpt-5') });
  const s2 = user('s2', 'Second summary', { synthetic: 'summary' });
  const p4 = user('p4', 'Ship it');
  const compactions: RecordedCompaction[] = [
    {
      source: 'codex-rollout-jsonl',
      trigger: 'auto',
      preTokens: 250_000,
      line: 40,
      at: 1_700_000_100_000,
      before: [p1, a1, cmd, p2, a2],
      summary: [p2, s1],
    },
    { source: 'codex-rollout-jsonl', trigger: 'manual', preTokens: null, line: 90, before: [p2, s1, p3, a3], summary: [p2, p3, s2] },
  ];
  return {
    messages: [p2, p3, s2, p4],
    compactions,
    importedFrom: 'codex-rollout-jsonl',
    contextWindow: 258_400,
    model: 'gpt-5',
    warnings: ['rollout.jsonl:12: thread_rolled_back: 1 turn dropped'],
  };
}

function assertSameSession(back: ImportResult, original: SplitpointSession, label = ''): void {
  assert.equal(back.format, 'splitpoint-jsonl', label);
  assert.deepEqual(back.messages, original.messages, `${label} messages`);
  assert.deepEqual(back.compactions, original.compactions, `${label} compactions`);
  assert.deepEqual(back.warnings, original.warnings ?? [], `${label} warnings`);
  assert.equal(back.contextWindow, original.contextWindow, `${label} contextWindow`);
  assert.equal(back.model, original.model, `${label} model`);
}

test('version 2 round-trips two compactions, kept messages, artefacts, usage, window, model and warnings', () => {
  const session = codexLikeSession();
  const text = serializeSplitpointSession(session, { sessionId: 'abc' });
  const back = importSession(text, 'out.jsonl');
  assertSameSession(back, session);
  assert.equal(back.header?.version, 2);
  assert.equal(back.header?.importedFrom, 'codex-rollout-jsonl');
  assert.equal(back.header?.sessionId, 'abc');
  // Serializing what was read gives the same bytes.
  assert.equal(serializeImportResult(back), text);
});

test('version 2 layout: archived messages, then the compaction line, then its summary; no context restart when not needed', () => {
  const text = serializeSplitpointSession(codexLikeSession());
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const kinds = lines.map((l) => (typeof l.type === 'string' ? l.type : (l.id as string)));
  assert.deepEqual(kinds, [
    'splitpoint.header',
    ...['p1', 'a1', 'c1', 'p2', 'a2'],
    'splitpoint.compaction',
    ...['p2', 's1'],
    'p3',
    'a3',
    'splitpoint.compaction',
    ...['p2', 'p3', 's2'],
    'p4',
  ]);
  assert.deepEqual(lines[6], {
    type: 'splitpoint.compaction',
    source: 'codex-rollout-jsonl',
    trigger: 'auto',
    preTokens: 250_000,
    line: 40,
    at: 1_700_000_100_000,
    summaryMessages: 2,
  });
});

test('a compaction whose context does not continue the previous summary restarts the context and still round-trips', () => {
  const session = codexLikeSession();
  // The second compaction's context lost its first message (say, a rollback): not summary_1 + more.
  const second = { ...session.compactions[1], before: session.compactions[1].before.slice(1) };
  const changed: SplitpointSession = { ...session, compactions: [session.compactions[0], second], messages: [user('x', 'fresh')] };
  const text = serializeSplitpointSession(changed);
  assert.equal(text.split('\n').filter((l) => l.includes('"splitpoint.context"')).length, 2);
  assertSameSession(importSession(text, 'restart.jsonl'), changed);
});

test('an empty summary and a session with no compactions round-trip', () => {
  const none: SplitpointSession = { messages: [user('u', 'hi'), assistant('a', 'hello')], compactions: [] };
  assertSameSession(importSession(serializeSplitpointSession(none), 'none.jsonl'), none);
  const empty: SplitpointSession = {
    messages: [user('u2', 'next')],
    compactions: [{ source: 'claude-code-jsonl', trigger: 'unknown', preTokens: 3, line: 2, before: [user('u', 'hi')], summary: [] }],
  };
  assertSameSession(importSession(serializeSplitpointSession(empty), 'empty.jsonl'), empty);
});

test('version 1 files still read, and a repeated id is reported only within one context', () => {
  const v1 = serializeSplitpointJsonl([user('a', 'x'), assistant('b', 'y')], { sessionId: 's' });
  const r = importSession(v1, 'v1.jsonl');
  assert.equal(r.header?.version, 1);
  assert.deepEqual(r.compactions, []);
  const dup = importSession(
    `{"type":"splitpoint.header","version":2}\n${JSON.stringify(user('a', 'x'))}\n${JSON.stringify(user('a', 'x'))}\n`,
    'd.jsonl',
  );
  assert.deepEqual(dup.warnings, ['d.jsonl:3: duplicate message id a (also on line 2)']);
});

const HEADER = '{"type":"splitpoint.header","version":2}';
const compactionJson = (fields: Record<string, unknown>) =>
  JSON.stringify({
    type: 'splitpoint.compaction',
    source: 'claude-code-jsonl',
    trigger: 'auto',
    preTokens: 10,
    summaryMessages: 1,
    ...fields,
  });
const msg = (id: string) => JSON.stringify(user(id, 'x'));

function importFails(text: string): ImportError {
  try {
    importSession(text, 'bad.jsonl');
  } catch (e) {
    assert.ok(e instanceof ImportError, String(e));
    return e;
  }
  assert.fail('expected an ImportError');
}

for (const [name, text, line, field, detail] of [
  [
    'bad trigger',
    [HEADER, msg('a'), compactionJson({ trigger: 'later' }), msg('s')],
    3,
    'trigger',
    /expected one of auto, manual, unknown, got "later"/,
  ],
  ['unknown source', [HEADER, compactionJson({ source: 'gemini' }), msg('s')], 2, 'source', /expected one of splitpoint-jsonl/],
  ['negative preTokens', [HEADER, compactionJson({ preTokens: -1 }), msg('s')], 2, 'preTokens', /non-negative integer or null/],
  ['missing summaryMessages', [HEADER, compactionJson({ summaryMessages: undefined })], 2, 'summaryMessages', /non-negative integer/],
  [
    'too few summary lines',
    [HEADER, msg('a'), compactionJson({ summaryMessages: 2 }), msg('s')],
    3,
    'summaryMessages',
    /expected 2 summary message lines after it, found 1 before the end of the file/,
  ],
  [
    'summary cut by a compaction',
    [HEADER, compactionJson({ summaryMessages: 2 }), msg('s'), compactionJson({})],
    2,
    'summaryMessages',
    /found 1 before line 4/,
  ],
  [
    'compaction in a version 1 file',
    ['{"type":"splitpoint.header","version":1}', msg('a'), compactionJson({})],
    3,
    'type',
    /needs a version 2 header/,
  ],
  ['compaction without header', [msg('a'), compactionJson({})], 2, 'type', /needs a version 2 header/],
  ['unknown splitpoint line', [HEADER, '{"type":"splitpoint.bookmark"}'], 2, 'type', /unknown line type "splitpoint.bookmark"/],
  [
    'bad header warnings',
    ['{"type":"splitpoint.header","version":2,"warnings":["ok",3]}'],
    1,
    'warnings[1]',
    /expected a string, got number 3/,
  ],
  ['bad header window', ['{"type":"splitpoint.header","version":2,"contextWindow":0}', msg('a')], 1, 'contextWindow', /positive integer/],
  ['bad header format', ['{"type":"splitpoint.header","version":2,"importedFrom":"x"}', msg('a')], 1, 'importedFrom', /expected one of/],
  [
    'bad usage on a message',
    [HEADER, '{"id":"a","role":"assistant","content":"x","usage":{"inputTokens":-1}}'],
    2,
    'usage.inputTokens',
    /non-negative/,
  ],
  ['unknown version', ['{"type":"splitpoint.header","version":3}', msg('a')], 1, 'version', /reads versions 1 and 2/],
] as const) {
  test(`malformed version 2 (${name}) names file:line:field`, () => {
    const e = importFails(text.join('\n') + '\n');
    assert.equal(e.file, 'bad.jsonl');
    assert.equal(e.line, line);
    assert.equal(e.field, field);
    assert.match(e.detail, detail);
    assert.ok(e.message.startsWith(`bad.jsonl:${line}: ${field}: `), e.message);
  });
}

// Property: any session built from a pool of messages (kept messages shared between contexts, contexts
// that do or do not continue the previous summary) round-trips exactly, and twice gives the same bytes.
const arbMessage = fc
  .record({
    role: fc.constantFrom('user' as const, 'assistant' as const),
    text: fc.string({ maxLength: 12 }),
    tokens: fc.option(fc.nat({ max: 5000 }), { nil: undefined }),
    artefact: fc.boolean(),
  })
  .map(({ role, text, tokens, artefact }): Omit<Message, 'id'> => {
    const m: Omit<Message, 'id'> = { role, content: text };
    if (role === 'assistant' && tokens !== undefined) m.usage = usage(tokens);
    if (role === 'user' && artefact) m.artefact = 'notification';
    return m;
  });

test('property: generated sessions with shared messages round-trip exactly', () => {
  fc.assert(
    fc.property(
      fc.array(arbMessage, { minLength: 1, maxLength: 12 }),
      fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 3 }), fc.boolean()), { maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      (pool, shapes, current) => {
        const messages = pool.map((m, i) => ({ id: `m${i}`, ...m }));
        const pick = (ixs: number[]) => ixs.map((i) => messages[i % messages.length]);
        let previousSummary: Message[] = [];
        const compactions: RecordedCompaction[] = shapes.map(([before, summary, continues], k) => {
          const c: RecordedCompaction = {
            source: 'claude-code-jsonl',
            trigger: 'auto',
            preTokens: k,
            line: k + 1,
            before: continues ? [...previousSummary, ...pick(before)] : pick(before),
            summary: pick(summary),
          };
          previousSummary = c.summary;
          return c;
        });
        const session: SplitpointSession = { messages: [...previousSummary, ...pick(current)], compactions, warnings: ['w'] };
        const text = serializeSplitpointSession(session);
        const back = importSession(text, 'p.jsonl');
        assert.deepEqual(back.messages, session.messages);
        assert.deepEqual(back.compactions, session.compactions);
        assert.equal(serializeImportResult(back).replace(/,"warnings":\[[^\]]*\]/, ''), text.replace(/,"warnings":\[[^\]]*\]/, ''));
      },
    ),
    { numRuns: 300 },
  );
});
