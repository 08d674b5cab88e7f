// The inspector service alone, over a plain session log: the current session and inspected files
// as views, previews on either, message details and the transcripts a webview may open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planContextFor, strategyParamsFor } from '../../src/settings/engineSettings';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { InspectorService, windowOf, type InspectedRecording } from '../../src/agent/service/inspectorService';
import {
  CharEstimateTokenizer,
  MemoizedMessageCounter,
  SessionFileStore,
  STRATEGIES,
  type CompactionPipeline,
  type Message,
} from '../../src/core';
import { lastRecordedInput, RECORDING_MODEL, RECORDING_PREFIX, syntheticRecording } from '../helpers/syntheticRecording';

function conversation(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ id: `u${i}`, role: 'user', content: `question ${i} `.repeat(20) });
    out.push({ id: `a${i}`, role: 'assistant', content: `answer ${i} `.repeat(40) });
  }
  return out;
}

/** A plain recording (no compactions, no usage), as the Anthropic JSON importer returns it. */
function recording(source: string, messages: Message[]): InspectedRecording {
  return { source, result: { format: 'anthropic-json', messages, compactions: [], warnings: [] } };
}

function rig(messages: Message[], readTranscript?: (path: string) => Message[]) {
  const store = new SessionFileStore(join(mkdtempSync(join(tmpdir(), 'sp-insp-')), 'sessions'));
  const session = store.create('s1', 'Inspected');
  session.append(...messages);
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const settings = DEFAULT_HOST_SETTINGS;
  const ctx = planContextFor(settings, counter);
  // What the model sees is the history itself here (no micro-compaction in play).
  const pipeline = {
    effectiveMessages: () => session.messages,
    liveContext: () => ({}),
    autoCompactDecision: () => null,
  } as unknown as CompactionPipeline;
  const service = new InspectorService({
    current: () => ({ session, pipeline, ctx }),
    settings: () => settings,
    counter,
    strategyParams: (name) => strategyParamsFor(settings, name, () => {}),
    overheadParts: () => ({ system: 100, tools: 50 }),
    ...(readTranscript ? { readTranscript } : {}),
  });
  return { service, session, counter };
}

test('the current session is editable and lists every strategy; an inspected file is read-only', () => {
  const { service } = rig(conversation(3));
  const current = service.currentSession();
  assert.equal(current.readOnly, false);
  assert.equal(current.sessionId, 's1');
  assert.equal(current.title, 'Inspected');
  assert.equal(current.rows.length, 6);
  assert.deepEqual(
    current.strategies.map((s) => s.name),
    STRATEGIES.map((s) => s.name),
  );
  assert.equal(current.canUndo, false);

  const file = service.sessionFor(recording('/tmp/other.jsonl', conversation(2)));
  assert.equal(file.readOnly, true);
  assert.equal(file.source, '/tmp/other.jsonl');
  assert.equal(file.rows.length, 4);
  assert.equal(file.tailStartId, null);
});

test('a preview plans on the current session, or on given messages, and never changes the session', () => {
  const { service, session } = rig(conversation(10));
  const before = session.messages;
  const view = service.preview('sliding-window', { maxEvents: 4 }, 7);
  assert.equal(view.requestId, 7);
  assert.equal(view.strategy, 'sliding-window');
  assert.equal(view.noop, false);
  assert.ok(view.tokensAfter < view.tokensBefore);
  assert.equal(view.archivedIds.length + view.keptIds.length, 20);
  assert.equal(session.messages, before);

  const other = service.preview('sliding-window', { maxEvents: 4 }, 8, { file: recording('/tmp/x.json', conversation(3)), at: null });
  assert.equal(other.archivedIds.length + other.keptIds.length, 6);
});

test('details are counted on what the model sees; unknown ids give undefined; transcripts come from compactions', () => {
  const { service, counter, session } = rig(conversation(2));
  const d = service.detail('a1');
  assert.ok(d);
  assert.equal(d.tokens, counter.countMessage(session.messages[3]));
  assert.equal(service.detail('nope'), undefined);
  assert.deepEqual([...service.knownTranscripts()], []);
});

test('a recording is shown as recorded: current context, archived contexts, no micro-compaction, its window, fitted overhead', () => {
  const { service, counter } = rig(conversation(2));
  const result = syntheticRecording(counter);
  const view = service.sessionFor({ source: '/rec/session.jsonl', result });
  assert.deepEqual(
    view.rows.map((r) => r.id),
    result.messages.map((m) => m.id),
  );
  assert.equal(view.readOnly, true);
  // Two recorded compactions: each one's context is archived, greyed above the current one.
  assert.deepEqual(
    view.archived?.map((s) => s.rows.map((r) => r.id)),
    result.compactions.map((c) => c.before.map((m) => m.id)),
  );
  const [first, second] = view.archived!.map((s) => s.compaction);
  assert.deepEqual(
    [first.index, first.agent, first.trigger, first.preTokens, first.line, first.archivedCount],
    [1, 'Claude Code', 'auto', 167_000, 12, 5],
  );
  assert.match(first.summaryPreview, /^Summary 1: /);
  assert.deepEqual([second.index, second.trigger, second.preTokens], [2, 'manual', 98_500]);
  // Claude Code does not record its window: the recorded model's (not the settings'); the overhead fitted from the usage.
  assert.equal(view.usage.window, 200_000);
  assert.equal(view.usage.windowSource, 'model');
  assert.equal(view.usage.overheadSource, 'fitted');
  assert.ok(Math.abs(view.usage.system - RECORDING_PREFIX) < RECORDING_PREFIX * 0.02, `fitted prefix ${view.usage.system}`);
  assert.equal(view.usage.tools, 0);
  assert.equal(view.usage.threshold, null, "this extension's auto-compact threshold is not the recording's");
  // Recorded usage: the last call's real input, and each call on its row.
  assert.equal(view.usage.recorded?.call.input, lastRecordedInput(result.messages));
  assert.equal(view.usage.recorded?.call.model, RECORDING_MODEL);
  assert.equal(view.usage.recorded?.messageId, 'a3');
  const a3 = view.rows.find((r) => r.id === 'a3')!;
  assert.equal(a3.usage?.input, lastRecordedInput(result.messages));
  assert.equal(a3.usage?.outputTokens, result.messages.find((m) => m.id === 'a3')!.usage!.outputTokens);
  // Artefacts are their own kind and never start a turn.
  const x3 = view.rows.find((r) => r.id === 'x3')!;
  assert.equal(x3.kind, 'artefact');
  assert.equal(x3.turn, view.rows.find((r) => r.id === 'p3')!.turn);
  assert.deepEqual(
    view.timeTravel?.points.map((p) => p.label),
    ['before compaction 1 (Claude Code, auto, 167K)', 'before compaction 2 (Claude Code, manual, 99K)'],
  );
  assert.equal(view.timeTravel?.at, null);

  // The window: the recording's, else its model's, else the settings'.
  assert.deepEqual(windowOf(result, 32_000), { window: 200_000, source: 'model' });
  const unknownModel = { ...result, model: 'local-llama', messages: result.messages.map((m) => ({ ...m, usage: undefined })) };
  assert.deepEqual(windowOf(unknownModel, 32_000), { window: 32_000, source: 'settings' });
  assert.deepEqual(windowOf(syntheticRecording(counter, 258_400), 32_000), { window: 258_400, source: 'recording' });
  // A recording that names its window (Codex token_count events) is shown against it.
  const codex = service.sessionFor({ source: '/rec/rollout.jsonl', result: syntheticRecording(counter, 258_400) });
  assert.equal(codex.usage.window, 258_400);
  assert.equal(codex.usage.windowSource, 'recording');
});

test('an inspected recording is never micro-compacted in the view; micro-compact stays a strategy to preview', () => {
  const { service, counter } = rig(conversation(1));
  const messages: Message[] = [{ id: 'p', role: 'user', content: 'read the files' }];
  for (let i = 0; i < 6; i++) {
    messages.push({ id: `c${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { i } }] });
    messages.push({
      id: `r${i}`,
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'file body '.repeat(200) }],
    });
  }
  messages.push({ id: 'done', role: 'assistant', content: 'Read them all.' });
  const file = recording('/rec/a.json', messages);
  const view = service.sessionFor(file);
  assert.equal(view.rows.filter((r) => r.truncated).length, 0);
  assert.deepEqual(
    view.rows.map((r) => r.tokens),
    messages.map((m) => counter.countMessage(m)),
  );
  const micro = service.preview('micro-compact', { keepRecent: 3, minChars: 100 }, 1, { file, at: null });
  assert.equal(micro.truncated.length, 3, 'previewing micro-compact truncates the three older results');
});

test('time travel: before compaction k the rows are its context, earlier ones stay archived, previews and details follow', () => {
  const { service, counter } = rig(conversation(2));
  const result = syntheticRecording(counter);
  const file = { source: '/rec/session.jsonl', result };
  const ids = (ms: readonly Message[]) => ms.map((m) => m.id);
  const at2 = service.sessionFor(file, 2);
  assert.deepEqual(
    at2.rows.map((r) => r.id),
    ids(result.compactions[1].before),
  );
  assert.equal(at2.archived?.length, 1);
  assert.equal(at2.timeTravel?.at, 2);
  assert.equal(at2.usage.recorded?.messageId, 'a2', 'the last call recorded in that context');
  const at1 = service.sessionFor(file, 1);
  assert.equal(at1.archived, undefined);
  // A point that does not exist is the current context.
  assert.equal(service.sessionFor(file, 7).timeTravel?.at, null);

  for (const [at, context] of [
    [null, result.messages],
    [1, result.compactions[0].before],
    [2, result.compactions[1].before],
  ] as const) {
    const plan = service.preview('sliding-window', { maxEvents: 2 }, 1, { file, at });
    assert.deepEqual([...plan.archivedIds, ...plan.keptIds].sort(), ids(context).sort(), `plan at ${at} covers exactly that context`);
  }
  // Details reach archived messages too.
  assert.match(service.detail('r1', { file, at: null })!.text, /upload\.test\.ts line/);
  assert.equal(service.detail('r1', { file, at: 1 })!.id, 'r1');
  assert.equal(service.detail('nope', { file, at: null }), undefined);
});

test("a recording with fewer than two recorded calls shows its overhead as unknown, never the agent's", () => {
  const { service } = rig(conversation(1));
  const messages: Message[] = [
    { id: 'u', role: 'user', content: 'hello' },
    {
      id: 'a',
      role: 'assistant',
      content: 'hi',
      usage: { inputTokens: 9_000, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 2 },
    },
  ];
  const view = service.sessionFor(recording('/rec/one.json', messages));
  assert.equal(view.usage.overheadSource, 'unknown');
  assert.deepEqual([view.usage.system, view.usage.tools], [0, 0]);
  assert.equal(view.usage.recorded?.call.input, 9_000);
  assert.equal(view.timeTravel, undefined, 'no compaction, no time travel');
});

test('the current session time-travels through its own compactions, from their transcripts (read-only there)', () => {
  const earlier = conversation(4);
  const reads: string[] = [];
  const { service, session } = rig(conversation(1), (path) => {
    reads.push(path);
    return earlier;
  });
  session.addCompaction({
    id: 'cmp1',
    at: 1,
    strategy: 'sliding-window',
    params: {},
    trigger: 'manual',
    tokensBefore: 12_345,
    tokensAfter: 100,
    archivedCount: 6,
    truncatedCount: 0,
    transcriptPath: '/t/transcript_1_s1.jsonl',
    syntheticId: null,
    tailStartId: 'u0',
    resultLength: 2,
  });
  const now = service.currentSession();
  assert.equal(now.readOnly, false);
  assert.deepEqual(now.timeTravel, {
    at: null,
    points: [{ at: 1, label: 'before compaction 1 (Splitpoint sliding-window, manual, 12K)', messages: 6 }],
  });
  const past = service.currentSession(1);
  assert.equal(past.readOnly, true);
  assert.equal(past.canUndo, false);
  assert.deepEqual(
    past.rows.map((r) => r.id),
    earlier.map((m) => m.id),
  );
  const plan = service.preview('sliding-window', { maxEvents: 2 }, 3, { at: 1 });
  assert.equal(plan.archivedIds.length + plan.keptIds.length, earlier.length);
  service.currentSession(1);
  assert.deepEqual(reads, ['/t/transcript_1_s1.jsonl'], 'the transcript is read once');
});
