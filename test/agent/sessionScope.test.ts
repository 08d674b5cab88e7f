// One session as one unit: a scope opens (or creates) a session with its chat log and pipeline,
// reports their changes while alive, reuses or replaces its agent, and on dispose removes every
// subscription, disposes the agent and writes the chat log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentLoop } from '../../src/agent/loop/agent';
import { pipelineSettingsFor, strategyParamsFor } from '../../src/settings/engineSettings';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { SessionScope, type SessionScopeHooks } from '../../src/agent/service/sessionScope';
import { CharEstimateTokenizer, MemoizedMessageCounter, SessionFileStore } from '../../src/core';

function rig() {
  const dir = mkdtempSync(join(tmpdir(), 'sp-scope-'));
  const store = new SessionFileStore(join(dir, 'sessions'));
  const heard: string[] = [];
  const hooks: SessionScopeHooks = {
    chatChanged: (c) => heard.push(`chat:${c.kind}`),
    sessionChanged: () => heard.push('session'),
    compactionStarted: () => heard.push('compaction-started'),
    compacted: () => heard.push('compacted'),
    compactionFailed: (f) => heard.push(`failed:${f.reason}`),
  };
  const settings = DEFAULT_HOST_SETTINGS;
  const open = (id?: string) =>
    new SessionScope({
      store,
      id,
      settings,
      pipelineSettings: pipelineSettingsFor(settings, (name) => strategyParamsFor(settings, name, () => {})),
      counter: new MemoizedMessageCounter(new CharEstimateTokenizer()),
      transcriptDir: join(dir, 'transcripts'),
      summarizer: async () => ({ ok: true, summary: 'summary', attempts: 1, promptTokens: 0, droppedMessages: 0, truncatedResults: 0 }),
      overheadTokens: () => 0,
      scale: () => 1,
      log: { warn: () => {} },
      hooks,
    });
  return { store, heard, open };
}

/** Enough of an AgentLoop for the scope: busy and dispose. */
function fakeAgent(): AgentLoop & { disposed: boolean } {
  const a = { busy: false, disposed: false, dispose: () => void (a.disposed = true) };
  return a as unknown as AgentLoop & { disposed: boolean };
}

test('a new scope creates a session; chat, history and pipeline changes reach the hooks while it lives', async () => {
  const { heard, open } = rig();
  const scope = open();
  assert.equal(scope.session.meta.title, 'New chat');
  scope.chat.notice('hello');
  scope.session.append({ id: 'u1', role: 'user', content: 'hi' });
  await scope.pipeline.compact({ strategy: 'no-such-strategy', trigger: 'manual' });
  assert.deepEqual(heard, ['chat:item', 'session', 'failed:invalid']);
  scope.dispose();
});

test('dispose removes every subscription: later changes reach no hook', async () => {
  const { heard, open } = rig();
  const scope = open();
  const pipeline = scope.pipeline;
  scope.dispose();
  await pipeline.compact({ strategy: 'no-such-strategy', trigger: 'manual' });
  scope.chatLog.upsert({ kind: 'notice', id: 'n1', message: 'after' });
  scope.session.append({ id: 'u1', role: 'user', content: 'hi' });
  assert.deepEqual(heard, []);
  assert.doesNotThrow(() => scope.dispose(), 'dispose is idempotent');
});

test('dispose disposes the agent and writes the chat log; reopening the session restores both logs', () => {
  const { store, open } = rig();
  const scope = open();
  const agent = fakeAgent();
  scope.agentFor('key', () => agent);
  scope.session.append({ id: 'u1', role: 'user', content: 'hi' });
  scope.chat.userPrompt('hi');
  const id = scope.session.id;
  scope.dispose();
  assert.equal(agent.disposed, true);
  const chatFile = join(store.dir, `${id}.chat.json`);
  assert.ok(existsSync(chatFile));
  assert.equal((JSON.parse(readFileSync(chatFile, 'utf8')) as unknown[]).length, 1);

  const again = open(id);
  assert.equal(again.session.id, id);
  assert.deepEqual(
    again.session.messages.map((m) => m.id),
    ['u1'],
  );
  assert.deepEqual(
    again.chatLog.all().map((i) => i.kind),
    ['user'],
  );
  again.dispose();
});

test('agentFor reuses the agent for the same key and replaces it for another; dropAgent disposes it', () => {
  const { open } = rig();
  const scope = open();
  const first = fakeAgent();
  assert.equal(
    scope.agentFor('k1', () => first),
    first,
  );
  assert.equal(
    scope.agentFor('k1', () => assert.fail('not rebuilt for the same key')),
    first,
  );
  const second = fakeAgent();
  assert.equal(
    scope.agentFor('k2', () => second),
    second,
  );
  assert.equal(first.disposed, true);
  assert.equal(scope.agent, second);
  scope.dropAgent();
  assert.equal(second.disposed, true);
  assert.equal(scope.agent, undefined);
  assert.equal(scope.busy, false);
  scope.dispose();
});

test("isAwaitingApproval reads the tool card state in this session's chat", () => {
  const { open } = rig();
  const scope = open();
  scope.chatLog.upsert({ kind: 'tool', id: 'tu_1', name: 'edit_file', input: '', status: 'awaiting-approval' });
  scope.chatLog.upsert({ kind: 'tool', id: 'tu_2', name: 'edit_file', input: '', status: 'running' });
  assert.equal(scope.isAwaitingApproval('tu_1'), true);
  assert.equal(scope.isAwaitingApproval('tu_2'), false);
  assert.equal(scope.isAwaitingApproval('nope'), false);
  scope.dispose();
});
