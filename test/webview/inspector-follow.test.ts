// A followed session is sent to the inspector again on every model call. What the webview keeps from
// one message to the next must not change what it shows: the lookups of a grown session (extended
// from the previous ones) equal those built from scratch, the written-out row checks reject every
// malformed row, and unchanged strategies keep their array (changed ones do not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/core/conversation/conversation';
import { importSession } from '../../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { buildInspectorSession } from '../../src/inspector/inspectorModel';
import type { InspectorSession, MessageRow } from '../../src/protocol';
import { indexSession, type SessionIndex } from '../../webview/inspector/derive';
import { parseHostToInspector } from '../../webview/inspector/hostMessages';
import { initialState, reduce, type InspectorState } from '../../webview/inspector/state';

const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');
const FIXTURE = 'claude-code-cipher-box-b.jsonl';
const MESSAGES: Message[] = importSession(readFileSync(join(ROOT, 'test', 'fixtures', 'real-sessions', FIXTURE), 'utf8'), FIXTURE).messages;
const ctx: PlanContext = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };

/** The session as the host sends it after `n` messages, micro-compacted as it grows, its tail start half-way. */
function sent(n: number): InspectorSession {
  const messages = MESSAGES.slice(0, n);
  const session = buildInspectorSession({
    source: 'Current session',
    readOnly: false,
    sessionId: 'followed',
    title: 'followed',
    messages,
    effective: planMicroCompact(messages, { keepRecent: 3, minChars: 100 }, ctx).output,
    compactions: [],
    ctx,
    overhead: { system: 2_400, tools: 1_800 },
    autoCompactThreshold: null,
    canUndo: false,
    tailStartId: n >= 4 ? messages[Math.floor(n / 2)].id : null,
  });
  // What the webview receives is a copy (VS Code clones it), never the host's objects.
  return structuredClone(session);
}

function sameLookups(grown: SessionIndex, fresh: SessionIndex, rows: readonly MessageRow[], at: string): void {
  for (const k of ['maxTokens', 'tailIndex', 'splitIndex', 'turns'] as const) assert.equal(grown[k], fresh[k], `${k} after ${at}`);
  assert.equal(grown.indexById.size, fresh.indexById.size, `map size after ${at}`);
  for (const r of rows) assert.equal(grown.indexById.get(r.id), fresh.indexById.get(r.id), `row of ${r.id} after ${at}`);
}

test('a followed session, call by call: the extended lookups equal lookups built from scratch', () => {
  assert.ok(MESSAGES.length >= 60, `the fixture has enough messages (${MESSAGES.length})`);
  const last = Math.min(MESSAGES.length, 160);
  let state: InspectorState = initialState;
  let index: SessionIndex | null = null;
  let truncatedSeen = 0;
  for (let n = 2; n <= last; n += n % 3 === 0 ? 2 : 1) {
    const before = state;
    state = reduce(state, { type: 'host', message: { type: 'session', session: sent(n) } });
    assert.equal(state.sessionChange, before.session ? 'append' : 'new', `change after ${n} messages`);
    const session = state.session!;
    truncatedSeen = Math.max(truncatedSeen, session.rows.filter((r) => r.truncated).length);
    // As the store does: a grown session extends the previous lookups.
    const grown = indexSession(session, state.sessionChange === 'append' ? index : null);
    // Some calls read the row map (the detail pane, a probe's source), some do not: both paths are taken.
    if (n % 4 === 0) void grown.indexById.size;
    sameLookups(grown, indexSession(session), session.rows, `${n} messages`);
    index = grown;
  }
  assert.ok(truncatedSeen > 0, 'older tool results were micro-compacted while the session grew');
});

test('the same session sent again, or rewritten: lookups still equal lookups built from scratch', () => {
  let state = reduce(initialState, { type: 'host', message: { type: 'session', session: sent(40) } });
  const first = indexSession(state.session!);
  void first.indexById.size;
  state = reduce(state, { type: 'host', message: { type: 'session', session: sent(40) } });
  assert.equal(state.sessionChange, 'same');
  sameLookups(indexSession(state.session!, first), indexSession(state.session!), state.session!.rows, 'the same session');
  // Fewer messages: a rewrite, never extended from the previous lookups (the store passes none).
  state = reduce(state, { type: 'host', message: { type: 'session', session: sent(30) } });
  assert.equal(state.sessionChange, 'rewrite');
});

test('every malformed row drops the whole session message; well-formed optional fields pass', () => {
  const valid = sent(12);
  const message = (row: Record<string, unknown>) => ({
    type: 'session',
    session: { ...valid, rows: [...valid.rows.slice(0, 5), row, ...valid.rows.slice(6)] },
  });
  const base = valid.rows[5] as unknown as Record<string, unknown>;
  assert.notEqual(parseHostToInspector({ type: 'session', session: valid }), null, 'the session as built');
  const call = { input: 10, inputTokens: 4, cacheReadTokens: 3, cacheCreationTokens: 3, outputTokens: 2 };
  const accepted: Array<[string, Record<string, unknown>]> = [
    ['tools', { ...base, tools: ['read_file', 'grep'] }],
    ['truncated', { ...base, truncated: { originalTokens: 90, tokens: 9, originalChars: 400 } }],
    ['a recorded call', { ...base, usage: { ...call, model: 'm', cacheWrite1hTokens: 3, costUSD: 0.01, priceSource: 'table' } }],
    ['pinned', { ...base, pinned: true }],
    ['server', { ...base, server: { strategy: 'server-compact', compaction: 'applied' } }],
  ];
  for (const [what, row] of accepted) assert.notEqual(parseHostToInspector(message(row)), null, `accepts a row with ${what}`);
  const { id: _id, ...withoutId } = base;
  const rejected: Array<[string, unknown]> = [
    ['no id', withoutId],
    ['a number id', { ...base, id: 5 }],
    ['a NaN index', { ...base, index: Number.NaN }],
    ['tokens as text', { ...base, tokens: '12' }],
    ['no turn', { ...base, turn: undefined }],
    ['an unknown role', { ...base, role: 'system' }],
    ['an unknown kind', { ...base, kind: 'nonsense' }],
    ['an inherited kind name', { ...base, kind: 'toString' }],
    ['no preview', { ...base, preview: null }],
    ['a tool name that is not text', { ...base, tools: ['read_file', 3] }],
    ['tools that are not a list', { ...base, tools: 'read_file' }],
    ['truncated without originalChars', { ...base, truncated: { originalTokens: 90, tokens: 9 } }],
    ['truncated as a list', { ...base, truncated: [90, 9, 400] }],
    ['a call without outputTokens', { ...base, usage: { ...call, outputTokens: undefined } }],
    ['a 1h cache write above the cache write', { ...base, usage: { ...call, cacheWrite1hTokens: 4 } }],
    ['a negative 1h cache write', { ...base, usage: { ...call, cacheWrite1hTokens: -1 } }],
    ['a model that is not text', { ...base, usage: { ...call, model: 1 } }],
    ['an unknown price source', { ...base, usage: { ...call, priceSource: 'guess' } }],
    ['a cost as text', { ...base, usage: { ...call, costUSD: '0.1' } }],
    ['pinned as text', { ...base, pinned: 'yes' }],
    ['an unknown server strategy', { ...base, server: { strategy: 'magic' } }],
    ['a row that is a list', [base]],
    ['a null row', null],
  ];
  for (const [what, row] of rejected)
    assert.equal(parseHostToInspector(message(row as Record<string, unknown>)), null, `rejects a row with ${what}`);
  assert.equal(parseHostToInspector({ type: 'session', session: { ...valid, rows: 'rows' } }), null, 'rejects rows that are not a list');
});

test('unchanged strategies keep their array from one session message to the next; changed ones are taken', () => {
  let state = reduce(initialState, { type: 'host', message: { type: 'session', session: sent(20) } });
  const strategies = state.session!.strategies;
  state = reduce(state, { type: 'host', message: { type: 'session', session: sent(22) } });
  assert.equal(state.session!.strategies, strategies, 'the same strategies: the same array');
  assert.equal(state.session!.rows.length, 22, 'the rest of the session is the new one');
  const changed = sent(24);
  changed.strategies = changed.strategies.map((s, i) =>
    i === 0 ? { ...s, params: s.params.map((p) => ({ ...p, value: p.value + 1 })) } : s,
  );
  state = reduce(state, { type: 'host', message: { type: 'session', session: changed } });
  assert.notEqual(state.session!.strategies, strategies, 'changed strategies are taken');
  assert.deepEqual(state.session!.strategies, changed.strategies);
});
