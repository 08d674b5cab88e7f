// The host controller end to end in plain Node: chat items from a real SDK run against the
// loopback server, approvals from the chat, auto-compaction dividers, and sessions that survive a
// "window reload" (a new controller on the same storage) and can be listed and resumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import type { HostSettings } from '../../src/settings/hostSettings';
import { isSummaryRequest } from '../helpers/summaryRequest';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import type { ChatItem } from '../../src/protocol';
import { loopbackController } from '../helpers/loopbackController';

interface Rig {
  server: LoopbackAnthropic;
  storage: string;
  workspace: string;
  make(settings?: Partial<HostSettings>, key?: string | null): AgentController;
  close(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-ctl-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-ctl-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  const controllers: AgentController[] = [];
  return {
    server,
    storage,
    workspace,
    make(settings = {}, key: string | null = 'sk-test') {
      const c = loopbackController({ workspace, storage, baseURL, settings, deps: { getApiKey: async () => key ?? undefined } });
      controllers.push(c);
      return c;
    },
    async close() {
      for (const c of controllers) c.dispose();
      await server.close();
    },
  };
}

const kinds = (items: ChatItem[]) => items.map((i) => i.kind);

test('a prompt streams into assistant and tool items; the model history stays a valid request', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('read_file', { path: 'app.ts' }, { text: 'Let me look.' }).text('The answer is **41**.');
    await c.send('What is the answer?');
    const items = c.chatState(true).items;
    assert.deepEqual(kinds(items), ['user', 'assistant', 'tool', 'assistant']);
    const tool = items[2] as Extract<ChatItem, { kind: 'tool' }>;
    assert.equal(tool.name, 'read_file');
    assert.equal(tool.status, 'done');
    assert.match(tool.output ?? '', /export const answer = 41/);
    assert.equal((items[3] as { text: string }).text, 'The answer is **41**.');
    assert.deepEqual(requestViolations(toApiMessages(c.session.messages)), []);
    assert.equal(c.session.meta.title, 'What is the answer?');
  } finally {
    await r.close();
  }
});

test('an edit waits for approval from the chat and is applied only when approved', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('edit_file', { path: 'app.ts', old_string: '41', new_string: '42' }).text('Fixed.');
    const awaiting = new Promise<string>((resolve) => {
      const sub = c.onDidChangeChat((ch) => {
        if (ch.kind === 'item' && ch.item.kind === 'tool' && ch.item.status === 'awaiting-approval') {
          sub.dispose();
          resolve(ch.item.id);
        }
      });
    });
    const run = c.send('Make it 42.');
    const id = await awaiting;
    const card = c.chatState(true).items.find((i) => i.id === id) as Extract<ChatItem, { kind: 'tool' }>;
    assert.match(card.diff?.unified ?? '', /-export const answer = 41;\n\+export const answer = 42;/);
    assert.equal(readFileSync(join(r.workspace, 'app.ts'), 'utf8'), 'export const answer = 41;\n', 'nothing written before approval');
    c.approve(id);
    await run;
    assert.equal(readFileSync(join(r.workspace, 'app.ts'), 'utf8'), 'export const answer = 42;\n');
  } finally {
    await r.close();
  }
});

test('a rejected edit leaves the file alone and tells the model why', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.toolUse('edit_file', { path: 'app.ts', old_string: '41', new_string: '0' }).text('Understood.');
    const sub = c.onDidChangeChat((ch) => {
      if (ch.kind === 'item' && ch.item.kind === 'tool' && ch.item.status === 'awaiting-approval') c.reject(ch.item.id, 'keep 41');
    });
    await c.send('Zero it.');
    sub.dispose();
    assert.equal(readFileSync(join(r.workspace, 'app.ts'), 'utf8'), 'export const answer = 41;\n');
    const sent = JSON.stringify(r.server.messageRequests[1].body.messages);
    assert.match(sent, /keep 41/);
    assert.equal((c.chatState(true).items.find((i) => i.kind === 'tool') as { status: string }).status, 'rejected');
  } finally {
    await r.close();
  }
});

test('without an API key the chat shows how to set one and nothing is sent', async () => {
  const r = await rig();
  try {
    const c = r.make({}, null);
    await c.send('hello');
    const last = c.chatState(false).items.at(-1)!;
    assert.equal(last.kind, 'error');
    assert.match((last as { message: string }).message, /Set API Key/);
    assert.equal(r.server.requests.length, 0);
  } finally {
    await r.close();
  }
});

test('auto-compaction during a chat shows a divider with tokens before/after and its transcript', async () => {
  const r = await rig();
  try {
    const c = r.make({
      contextWindow: 6_000,
      maxOutputTokens: 1_000,
      autoCompact: { enabled: true, threshold: 0.5, strategy: 'recursive-summarization' },
      strategyParams: { 'recursive-summarization': { maxEventsToKeep: 2, overlapSize: 1 } },
    });
    r.server.responder = (req) => (isSummaryRequest(req.body) ? reply.text('SUMMARY of the chat so far.') : undefined);
    for (let i = 0; i < 6; i++) {
      r.server.queue.text(`Answer ${i}: ${'a long explanation of the code. '.repeat(60)}`);
      await c.send(`Question ${i}`);
    }
    const divider = c.chatState(true).items.find((i) => i.kind === 'compaction') as Extract<ChatItem, { kind: 'compaction' }> | undefined;
    assert.ok(divider, `expected a compaction divider in ${kinds(c.chatState(true).items).join(',')}`);
    assert.equal(divider.trigger, 'auto');
    assert.ok(divider.tokensAfter < divider.tokensBefore);
    assert.ok(c.knownTranscripts().has(divider.transcriptPath));
    // The chat still shows every question although the model's history was compacted.
    assert.equal(c.chatState(true).items.filter((i) => i.kind === 'user').length, 6);
    assert.equal(c.session.messages[0].synthetic, 'summary');
  } finally {
    await r.close();
  }
});

test('a reload (new controller on the same storage) restores the session and the chat; sessions can be listed and resumed', async () => {
  const r = await rig();
  try {
    const first = r.make();
    r.server.queue.text('First answer.');
    await first.send('First chat');
    const firstId = first.session.id;
    const firstMessages = [...first.session.messages];
    first.newChat();
    r.server.queue.text('Second answer.');
    await first.send('Second chat');
    const calibration = first.calibrationState();
    assert.ok(calibration.observations >= 2, 'count_tokens and the API-reported usage calibrated the counter');
    first.dispose();

    const reloaded = r.make();
    assert.deepEqual(reloaded.calibrationState(), calibration, 'the calibration survives the reload');
    assert.equal(reloaded.session.meta.title, 'Second chat', 'the most recent session is reopened');
    // Nothing is counted on the host thread until the worker has counted the session (warmup)...
    assert.equal(reloaded.contextMeter().used, 0);
    await reloaded.warmup();
    // ...then the meter counts the system prompt and tool definitions before the agent is rebuilt.
    assert.ok(reloaded.contextMeter().used > 500, `context after reload: ${reloaded.contextMeter().used}`);
    assert.deepEqual(kinds(reloaded.chatState(true).items), ['user', 'assistant']);
    const listed = reloaded.listSessions().map((s) => s.title);
    assert.deepEqual(listed.sort(), ['First chat', 'Second chat']);
    reloaded.resume(firstId);
    assert.deepEqual(reloaded.session.messages, firstMessages);
    assert.equal((reloaded.chatState(true).items[1] as { text: string }).text, 'First answer.');
    // And the conversation continues from the restored history.
    r.server.queue.text('Continued.');
    await reloaded.send('Go on');
    const lastRequest = r.server.messageRequests.at(-1)!.body.messages ?? [];
    assert.equal(lastRequest.length, 3);
  } finally {
    await r.close();
  }
});

test('inspector preview, apply and undo through the controller', async () => {
  const r = await rig();
  try {
    const c = r.make();
    for (let i = 0; i < 4; i++) {
      r.server.queue.text(`Answer ${i}`);
      await c.send(`Question ${i}`);
    }
    const before = [...c.session.messages];
    const view = c.inspectorSession();
    assert.equal(view.rows.length, 8);
    const plan = c.preview('turn-window', { maxTurns: 1 }, 7);
    assert.equal(plan.requestId, 7);
    assert.equal(plan.archivedIds.length, 6);
    assert.deepEqual(c.session.messages, before, 'preview changes nothing');
    const outcome = await c.compactNow({ strategy: 'turn-window', params: { maxTurns: 1 }, trigger: 'inspector' });
    assert.equal(outcome.ok, true);
    // The last turn, opened by the synthetic opener that carries the artifact ledger of what left.
    assert.equal(c.session.messages.length, 3);
    const opener = c.session.messages[0];
    assert.equal(opener.synthetic, 'placeholder');
    for (const q of ['Question 0', 'Question 1', 'Question 2']) assert.ok(JSON.stringify(opener.content).includes(q), q);
    assert.equal(c.inspectorSession().canUndo, true);
    assert.equal(c.undo().ok, true);
    assert.deepEqual(c.session.messages, before);
  } finally {
    await r.close();
  }
});

test('busy from send until the run ends, the first request count included: the chat state says so; a second prompt is refused', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.countQueue.hang(); // count_tokens answers only when the client gives up (its timeout)
    r.server.queue.text('First answer.');
    const busyEvents: boolean[] = [];
    const sub = c.onDidChangeBusy((b) => busyEvents.push(b.busy));
    const first = c.send('one');
    for (let i = 0; i < 200 && !r.server.requests.some((q) => q.path.endsWith('/count_tokens')); i++) {
      await new Promise((res) => setTimeout(res, 25));
    }
    assert.ok(
      r.server.requests.some((q) => q.path.endsWith('/count_tokens')),
      'the first request of the session is counted by the API',
    );
    assert.equal(c.busy, true, 'busy while the first request is being counted');
    assert.equal(c.chatState(true).busy, true, 'a state sent now (e.g. after the title changes) must not clear busy');
    await c.send('two');
    await first;
    sub.dispose();
    const items = c.chatState(true).items;
    assert.deepEqual(
      items.filter((i) => i.kind === 'user').map((i) => (i as { text: string }).text),
      ['one'],
      'the second prompt was refused, not run',
    );
    assert.ok(items.some((i) => i.kind === 'notice' && /still working/.test(i.message)));
    assert.equal(busyEvents.at(-1), false);
    assert.equal(c.busy, false);
  } finally {
    await r.close();
  }
});

test('a new chat closed at once (the window closing) leaves no unhandled rejection from its count ahead', async () => {
  const r = await rig();
  const rejections: unknown[] = [];
  const onRejection = (e: unknown) => rejections.push(e);
  process.on('unhandledRejection', onRejection);
  try {
    const c = r.make();
    c.newChat();
    c.newChat();
    c.dispose();
    // Long enough for the worker's count and the view's slices to settle against the disposed scopes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(rejections.map(String), []);
  } finally {
    process.off('unhandledRejection', onRejection);
    await r.close();
  }
});
