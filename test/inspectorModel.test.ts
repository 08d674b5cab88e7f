// The inspector's model: rows, usage, strategies, compactions, plans and details built from engine data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindOf, type Message } from '../src/core/conversation/conversation';
import { importSession } from '../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../src/core/pipeline/plan';
import type { CompactionRecord } from '../src/core/session/session';
import { STRATEGIES, planWith } from '../src/core/strategies';
import { planMicroCompact } from '../src/core/strategies/microCompact';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../src/core/counting/tokens';
import { buildInspectorSession, type InspectorSessionInput } from '../src/inspector/inspectorModel';
import { parseHostToInspector } from '../webview/inspector/hostMessages';
import { messageDetail, previewOf, PREVIEW_CHARS } from '../src/inspector/messageText';
import { planToView, strategyViews } from '../src/inspector/planViews';
import { agentOf, shortTokens, timeTravelLabel } from '../src/inspector/recordedViews';
import { assistant, call, FixedCostCounter, results, summary, user } from './helpers/build';
import { syntheticSession } from './helpers/synthetic';
import { lastRecordedInput, syntheticRecording } from './helpers/syntheticRecording';

const ROOT = join(import.meta.dirname ?? __dirname, '..');

function ctx(window = 200_000): PlanContext {
  return { ...DEFAULT_PLAN_CONTEXT, contextWindow: window, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
}

function input(messages: Message[], over: Partial<InspectorSessionInput> = {}): InspectorSessionInput {
  const c = over.ctx ?? ctx();
  return {
    source: 'Current session',
    readOnly: false,
    sessionId: 's1',
    title: 'Test',
    messages,
    effective: messages,
    compactions: [],
    ctx: c,
    overhead: { system: 1000, tools: 500 },
    autoCompactThreshold: 160_000,
    canUndo: false,
    tailStartId: null,
    ...over,
  };
}

const big = 'x'.repeat(4_000);
const conversation = (): Message[] => [
  user('u1', 'Fix the leap-year bug'),
  { id: 'th1', role: 'assistant', content: [{ type: 'thinking', thinking: 'Check February.', signature: 's' }] },
  call('c1', ['t1', 'read_file'], ['t2', 'search']),
  results('r1', ['t1', big], ['t2', 'src/date.ts:14']),
  assistant('a1', 'Found it.'),
  summary('s1', 'Summary of earlier work'),
  user('u2', 'Now add tests'),
  call('c2', ['t3', 'run_command']),
  results('r2', ['t3', 'ok']),
  assistant('a2', 'Done.'),
];

test('one row per message with its kind, turn, tools and a one-line preview', () => {
  const messages = conversation();
  const s = buildInspectorSession(input(messages));
  assert.equal(s.rows.length, messages.length);
  assert.deepEqual(
    s.rows.map((r) => r.kind),
    [
      'user-prompt',
      'thinking',
      'tool-call',
      'tool-result',
      'assistant-text',
      'summary',
      'user-prompt',
      'tool-call',
      'tool-result',
      'assistant-text',
    ],
  );
  assert.deepEqual(
    s.rows.map((r) => r.turn),
    [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
  );
  assert.deepEqual(
    s.rows.map((r) => r.index),
    messages.map((_, i) => i),
  );
  assert.deepEqual(s.rows[2].tools, ['read_file', 'search']);
  assert.deepEqual(s.rows[3].tools, ['read_file', 'search'], 'a tool result names the tools it answers');
  assert.equal(s.rows[0].tools, undefined);
  assert.equal(s.rows[0].preview, 'Fix the leap-year bug');
  assert.match(s.rows[2].preview, /^read_file \{"path":"read_file.txt"\} · search/);
  assert.ok(s.rows[3].preview.length <= PREVIEW_CHARS);
  assert.ok(s.rows[3].preview.endsWith('…'));
  assert.equal(s.rows[1].role, 'assistant');
});

test('a row of an MCP tool call or result names the MCP server it came from', () => {
  const messages = [
    user('u1', 'Echo'),
    call('c1', ['t1', 'mcp__everything__echo'], ['t2', 'read_file']),
    results('r1', ['t1', 'Echo: hi'], ['t2', 'x']),
  ];
  const s = buildInspectorSession(input(messages));
  assert.deepEqual(s.rows[1].mcp, [{ server: 'everything', tool: 'echo' }]);
  assert.deepEqual(s.rows[2].mcp, [{ server: 'everything', tool: 'echo' }], 'the result names the server it came from');
  assert.equal(s.rows[0].mcp, undefined);
  assert.equal(
    buildInspectorSession(input(conversation())).rows.find((r) => r.mcp),
    undefined,
    'workspace tools have no server',
  );
});

test('messages before the first prompt are in turn -1', () => {
  const s = buildInspectorSession(input([summary('s0'), user('u1'), assistant('a1')]));
  assert.deepEqual(
    s.rows.map((r) => r.turn),
    [-1, 0, 0],
  );
});

test('previews collapse whitespace, stay within 160 characters and never split a surrogate pair', () => {
  assert.equal(previewOf({ content: '  a\n\n b\t c  ' }), 'a b c');
  const emoji = '😀'.repeat(200);
  const p = previewOf({ content: emoji });
  assert.ok(p.length <= PREVIEW_CHARS);
  assert.ok(!/[\ud800-\udbff]…$/.test(p), 'no lone high surrogate before the ellipsis');
  assert.equal(previewOf({ content: [{ type: 'image', source: {} }] }), '[image · 1,600 tokens, size unknown]');
  // A 2x1 PNG: its size from the header, and what the API bills for it.
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGBkBAAAA//8DAAb/Af8AAAAASUVORK5CYII=';
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
  assert.equal(previewOf({ content: [{ type: 'text', text: 'look' }, image] }), 'look · [image 2×1 · 1 tokens]');
  assert.equal(previewOf({ content: [{ type: 'tool_result', tool_use_id: 't', content: 'boom', is_error: true }] }), 'error: boom');
});

test('tokens are those of what the model sees; micro-compacted rows carry their original size', () => {
  const c = ctx();
  const messages = conversation();
  const effective = planMicroCompact(messages, { keepRecent: 1, minChars: 100 }, c).output;
  assert.notEqual(effective[3], messages[3], 'fixture: r1 is micro-compacted');
  const s = buildInspectorSession(input(messages, { ctx: c, effective }));
  const r1 = s.rows[3];
  assert.equal(r1.tokens, c.tokens.countMessage(effective[3]));
  assert.ok(r1.truncated);
  assert.equal(r1.truncated.originalTokens, c.tokens.countMessage(messages[3]));
  assert.equal(r1.truncated.tokens, r1.tokens);
  assert.equal(r1.truncated.originalChars, big.length);
  assert.ok(r1.tokens < r1.truncated.originalTokens);
  assert.equal(r1.preview.startsWith('xxxx'), true, 'the preview shows the original output');
  assert.equal(s.rows[8].truncated, undefined, 'the most recent result is kept');
  assert.equal(s.rows.filter((r) => r.truncated).length, 1);
});

test('a superseded result says so on its row: what superseded it and in which call; the webview accepts it, and rejects a bad one', () => {
  const c = ctx();
  // read_file.txt is read again in call 4 (t4): t1's result is superseded.
  const messages = [...conversation(), user('u3', 'Again'), call('c3', ['t4', 'read_file']), results('r3', ['t4', big]), assistant('a3')];
  const effective = planMicroCompact(messages, { keepRecent: 1, minChars: 10, supersede: true }, c).output;
  const s = buildInspectorSession(input(messages, { ctx: c, effective }));
  assert.deepEqual(s.rows[3].truncated?.superseded, ['read_file.txt was read again in call 4']);
  assert.ok(parseHostToInspector({ type: 'session', session: s }));
  const bad = { ...s, rows: s.rows.map((r, i) => (i === 3 ? { ...r, truncated: { ...r.truncated!, superseded: 'not a list' } } : r)) };
  assert.equal(parseHostToInspector({ type: 'session', session: bad }), null);
  // Off: the same row is only truncated.
  const off = planMicroCompact(messages, { keepRecent: 1, minChars: 10 }, c).output;
  assert.equal(buildInspectorSession(input(messages, { ctx: c, effective: off })).rows[3].truncated?.superseded, undefined);
});

test('an effective list that is not index-aligned is matched by id', () => {
  const c = ctx();
  const messages = conversation();
  const effective = planMicroCompact(messages, { keepRecent: 1, minChars: 100 }, c).output;
  const shuffled = [...effective].reverse().filter((m) => m.id !== 'u1');
  const s = buildInspectorSession(input(messages, { ctx: c, effective: shuffled }));
  assert.ok(s.rows[3].truncated, 'r1 found by id');
  assert.equal(s.rows[0].tokens, c.tokens.countMessage(messages[0]), 'missing ids fall back to the original');
});

test('the usage breakdown splits the window into overhead, messages (tool results, summaries) and free space', () => {
  const counter = new FixedCostCounter({ r1: 300, r2: 50, s1: 120 }, 10);
  const c: PlanContext = { ...DEFAULT_PLAN_CONTEXT, contextWindow: 2_000, tokens: counter };
  const s = buildInspectorSession(input(conversation(), { ctx: c, overhead: { system: 400, tools: 200 }, autoCompactThreshold: 1_600 }));
  assert.deepEqual(s.usage, {
    window: 2_000,
    system: 400,
    tools: 200,
    messages: 300 + 50 + 120 + 7 * 10,
    toolResults: 350,
    summaries: 120,
    free: 2_000 - 600 - 540,
    threshold: 1_600,
  });
  const over = buildInspectorSession(input(conversation(), { ctx: { ...c, contextWindow: 500 }, autoCompactThreshold: null }));
  assert.equal(over.usage.free, 0);
  assert.equal(over.usage.threshold, null);
});

test('every registered strategy is offered, with setting values where valid and defaults otherwise', () => {
  const views = strategyViews({
    'sliding-window': { maxEvents: 12 },
    'recent-token-fraction': { fraction: 7 },
    'turn-window': { maxTurns: 2.5 },
  });
  assert.deepEqual(
    views.map((v) => v.name),
    STRATEGIES.map((s) => s.name),
  );
  const get = (name: string, param: string) => views.find((v) => v.name === name)!.params.find((p) => p.name === param)!;
  assert.equal(get('sliding-window', 'maxEvents').value, 12);
  assert.equal(get('recent-token-fraction', 'fraction').value, 0.3, 'out of range: default');
  assert.equal(get('turn-window', 'maxTurns').value, 10, 'not an integer: default');
  assert.deepEqual(get('recent-token-fraction', 'fraction'), {
    name: 'fraction',
    description: get('recent-token-fraction', 'fraction').description,
    value: 0.3,
    min: 0.01,
    max: 0.99,
    integer: false,
  });
  for (const def of STRATEGIES) {
    const v = views.find((x) => x.name === def.name)!;
    assert.equal(v.usesSummarizer, def.usesSummarizer);
    assert.equal(v.title, def.title);
    assert.deepEqual(
      v.params.map((p) => p.name),
      def.params.map((p) => p.name),
    );
  }
});

test('past compactions, read-only sessions and the tail-start pointer pass through', () => {
  const record: CompactionRecord = {
    id: 'cmp1',
    at: 1_763_856_000_000,
    strategy: 'recent-turns',
    params: { turns: 2 },
    trigger: 'manual',
    tokensBefore: 150_000,
    tokensAfter: 20_000,
    archivedCount: 300,
    truncatedCount: 2,
    transcriptPath: '/t/1.jsonl',
    syntheticId: 'sum_1',
    tailStartId: 'u2',
    resultLength: 12,
    focus: 'the cache',
  };
  const s = buildInspectorSession(input(conversation(), { compactions: [record], tailStartId: 'u2', canUndo: true }));
  assert.deepEqual(s.compactions, [
    {
      id: 'cmp1',
      at: record.at,
      strategy: 'recent-turns',
      trigger: 'manual',
      tokensBefore: 150_000,
      tokensAfter: 20_000,
      archivedCount: 300,
      transcriptPath: '/t/1.jsonl',
      focus: 'the cache',
    },
  ]);
  assert.equal(s.tailStartId, 'u2');
  assert.equal(s.canUndo, true);
  const ro = buildInspectorSession(input(conversation(), { readOnly: true, source: '/x/session.jsonl', canUndo: true }));
  assert.equal(ro.readOnly, true);
  assert.equal(ro.source, '/x/session.jsonl');
  assert.equal(ro.canUndo, false, 'nothing to undo in a read-only view');
});

test('planToView carries the plan as ids and figures', () => {
  const c = ctx();
  const messages = importSession(readFileSync(join(ROOT, 'examples', 'session.jsonl'), 'utf8'), 'session.jsonl').messages;
  for (const def of STRATEGIES) {
    const plan = planWith(def.name, messages, {}, c);
    const v = planToView(plan, 7, 3.14159);
    assert.equal(v.requestId, 7);
    assert.equal(v.strategy, def.name);
    assert.equal(v.computeMs, 3.1);
    assert.equal(v.noop, plan.noop);
    assert.equal(v.splitIndex, plan.splitIndex);
    assert.equal(v.tailStartId, plan.tailStartId);
    assert.deepEqual(
      v.archivedIds,
      plan.archived.map((e) => e.id),
    );
    assert.deepEqual(
      v.keptIds,
      plan.kept.map((e) => e.id),
    );
    assert.deepEqual(
      v.truncated,
      plan.truncated.map((t) => ({ id: t.id, tokens: t.tokens, originalTokens: t.originalTokens })),
    );
    assert.equal(v.archivedIds.length + v.keptIds.length, messages.length, `${def.name}: archived + kept covers every message`);
    assert.equal(v.tokensBefore, plan.tokensBefore);
    assert.equal(v.tokensAfter, plan.tokensAfter);
    assert.equal(v.needsSummary, plan.needsSummary);
    const si = plan.summarizerInput;
    assert.equal(v.summarizerInputTokens, si?.tokens ?? 0);
    assert.equal(v.summarizerInputMessages, si ? si.priorSummaries.length + si.toSummarize.length + si.overlap.length : 0);
    assert.deepEqual(JSON.parse(JSON.stringify(v)), v, 'plain JSON (postMessage-safe)');
  }
});

test('message detail: full text, and for a micro-compacted result what the model sees too', () => {
  const c = ctx();
  const messages = conversation();
  const effective = planMicroCompact(messages, { keepRecent: 1, minChars: 100 }, c).output;
  const d = messageDetail(messages[3], effective[3], 42);
  assert.equal(d.id, 'r1');
  assert.equal(d.kind, 'tool-result');
  assert.equal(d.tokens, 42);
  assert.ok(d.text.includes(big), 'the original output in full');
  assert.ok(d.text.includes('[tool_result t1]'));
  assert.ok(d.effectiveText?.includes('[Previous: used read_file]'));
  assert.ok(d.effectiveText?.includes('src/date.ts:14'), 'the untouched result is in both');
  const plain = messageDetail(messages[0], messages[0], 5);
  assert.equal(plain.text, 'Fix the leap-year bug');
  assert.equal(plain.effectiveText, undefined);
  const call = messageDetail(messages[2], undefined, 9);
  assert.match(call.text, /\[tool_use read_file · t1\]\n\{\n {2}"path": "read_file.txt"\n\}/);
  const th = messageDetail(messages[1], messages[1], 3);
  assert.equal(th.text, '[thinking]\nCheck February.');
});

test('10,000 messages (about 9M tokens) build in well under two seconds', () => {
  const c = ctx(1_000_000);
  const messages = syntheticSession({ messages: 10_000, seed: 5 });
  const effective = planMicroCompact(messages, { keepRecent: 3, minChars: 100 }, c).output;
  const t0 = performance.now();
  const s = buildInspectorSession(input(messages, { ctx: c, effective }));
  const ms = performance.now() - t0;
  assert.equal(s.rows.length, 10_000);
  assert.ok(s.rows.every((r) => r.preview.length <= PREVIEW_CHARS));
  assert.ok(ms < 2_000, `took ${ms.toFixed(0)} ms`);
  const json = JSON.stringify(s).length;
  assert.ok(json < 4_000_000, `session JSON ${json} chars`);
});

test('a recording with two compactions: archived contexts with their compactions, usage per call and the last call recorded', () => {
  const c = ctx();
  const rec = syntheticRecording(c.tokens);
  const points = [{ at: 1, label: timeTravelLabel(1, 'Claude Code', 'auto', 167_000), messages: 5 }];
  const s = buildInspectorSession(
    input(rec.messages, {
      ctx: c,
      readOnly: true,
      archived: rec.compactions,
      overhead: { system: 20_000, tools: 0 },
      overheadSource: 'fitted',
      windowSource: 'recording',
      autoCompactThreshold: null,
      timeTravel: { at: null, points },
    }),
  );
  assert.deepEqual(
    s.rows.map((r) => r.id),
    rec.messages.map((m) => m.id),
  );
  assert.equal(s.archived?.length, 2);
  const [one, two] = s.archived!;
  assert.deepEqual(
    one.rows.map((r) => [r.id, r.kind]),
    rec.compactions[0].before.map((m) => [m.id, kindOf(m)]),
  );
  assert.equal(one.compaction.archivedTokens, c.tokens.countMessages(rec.compactions[0].before));
  assert.equal(one.compaction.summaryTokens, c.tokens.countMessages(rec.compactions[0].summary));
  assert.equal(two.compaction.index, 2);
  assert.equal(two.compaction.trigger, 'manual');
  assert.match(two.compaction.summaryPreview, /^Summary 2: /);
  assert.equal(one.compaction.at, rec.compactions[0].at);
  assert.equal(two.compaction.at, undefined);
  // Usage: the recorded line is the last call's real input; every call is on its row.
  assert.equal(s.usage.recorded?.call.input, lastRecordedInput(rec.messages));
  assert.equal(s.usage.overheadSource, 'fitted');
  assert.equal(s.usage.windowSource, 'recording');
  for (const m of rec.messages) {
    const row = s.rows.find((r) => r.id === m.id)!;
    if (m.usage) {
      assert.equal(row.usage?.input, m.usage.inputTokens + m.usage.cacheReadTokens + m.usage.cacheCreationTokens);
      assert.equal(row.usage?.model, m.usage.model);
    } else assert.equal(row.usage, undefined);
  }
  // Artefacts never start a turn: the current context has one genuine prompt.
  assert.equal(Math.max(...s.rows.map((r) => r.turn)) + 1, 1);
  assert.ok(s.rows.some((r) => r.kind === 'artefact'));
  assert.deepEqual(s.timeTravel, { at: null, points });
  // The current session (no recording) carries none of it.
  const plain = buildInspectorSession(input(conversation()));
  assert.equal(plain.archived, undefined);
  assert.equal(plain.timeTravel, undefined);
  assert.equal(plain.usage.recorded, undefined);
  assert.equal(plain.usage.overheadSource, undefined);
});

test('labels: agents by format, short token counts, time-travel points', () => {
  assert.equal(agentOf('claude-code-jsonl'), 'Claude Code');
  assert.equal(agentOf('codex-rollout-jsonl'), 'Codex');
  assert.deepEqual([shortTokens(950), shortTokens(167_389), shortTokens(98_500), shortTokens(1_250_000)], ['950', '167K', '99K', '1.3M']);
  assert.equal(timeTravelLabel(2, 'Codex', 'auto', 227_112), 'before compaction 2 (Codex, auto, 227K)');
  assert.equal(timeTravelLabel(1, 'Claude Code', 'unknown', null), 'before compaction 1 (Claude Code, unknown)');
});
