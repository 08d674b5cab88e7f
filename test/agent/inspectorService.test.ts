// The inspector service alone, over a plain session log: the current session and inspected files
// as views, previews on either, message details and the transcripts a webview may open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planContextFor, strategyParamsFor } from '../../src/agent/engineSettings';
import { DEFAULT_HOST_SETTINGS } from '../../src/agent/hostSettings';
import { InspectorService } from '../../src/agent/inspectorService';
import {
  CharEstimateTokenizer,
  MemoizedMessageCounter,
  SessionFileStore,
  STRATEGIES,
  type CompactionPipeline,
  type Message,
} from '../../src/core';

function conversation(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ id: `u${i}`, role: 'user', content: `question ${i} `.repeat(20) });
    out.push({ id: `a${i}`, role: 'assistant', content: `answer ${i} `.repeat(40) });
  }
  return out;
}

function rig(messages: Message[]) {
  const store = new SessionFileStore(join(mkdtempSync(join(tmpdir(), 'sp-insp-')), 'sessions'));
  const session = store.create('s1', 'Inspected');
  session.append(...messages);
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const settings = DEFAULT_HOST_SETTINGS;
  const ctx = planContextFor(settings, counter);
  // What the model sees is the history itself here (no micro-compaction in play).
  const pipeline = { effectiveMessages: () => session.messages } as unknown as CompactionPipeline;
  const service = new InspectorService({
    current: () => ({ session, pipeline, ctx }),
    settings: () => settings,
    counter,
    strategyParams: (name) => strategyParamsFor(settings, name, () => {}),
    overheadParts: () => ({ system: 100, tools: 50 }),
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

  const file = service.sessionFor('/tmp/other.jsonl', conversation(2), conversation(2));
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

  const other = service.preview('sliding-window', { maxEvents: 4 }, 8, conversation(3));
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
