// "Continue in Splitpoint" (issue 24 item 5) on the real recorded sessions: the new Splitpoint session's
// history is the import's current context, each recorded compaction is a compaction record whose
// transcript holds the context it archived (undo and time travel read it), the chat says where it came
// from, and the first request the agent sends (the real SDK against the loopback server, which validates
// it as the API does) starts with the imported context. The recorded file is never written to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { LoopbackAnthropic, type WireBlock, type WireMessage } from '../loopback/anthropic-server';
import { loopbackController } from '../helpers/loopbackController';
import { continueSession, ContinueSessionError, sessionsDirOf, withoutThinking } from '../../src/agent/service/continueSession';
import { chatItemsOf } from '../../src/agent/service/continuedChat';
import { blocksOf, importSessionFile, restoreTranscript, toApiMessages, type ApiMessage, type Message } from '../../src/core';
import { requestViolations } from '../../src/core/conversation/invariants';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';
import type { ChatItem } from '../../src/protocol';

const FIXTURES = resolve('test/fixtures/real-sessions');
const SESSIONS = ['claude-code-cipher-box-a', 'claude-code-cipher-box-b', 'claude-code-cipher-box-c', 'codex-agentv-a', 'codex-agentv-b'];

/** Nothing of the imported context is replaced or compacted before the first request (so it can be compared as sent). */
const SETTINGS: HostSettings = {
  ...DEFAULT_HOST_SETTINGS,
  model: 'claude-test',
  contextWindow: 2_000_000,
  autoCompact: { ...DEFAULT_HOST_SETTINGS.autoCompact, enabled: false },
  microCompact: { ...DEFAULT_HOST_SETTINGS.microCompact, keepRecent: 1_000_000, minChars: 1_000_000_000 },
  promptCaching: 'off',
};

async function rig() {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject', defaultContextWindow: 2_000_000 });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-continue-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-continue-ws-'));
  const settings = { ...SETTINGS, baseUrl: baseURL };
  const controller = loopbackController({ workspace, storage, baseURL, settings });
  const target = { storageDir: storage, workspaceRoot: workspace, settings };
  return {
    server,
    storage,
    controller,
    target,
    async close() {
      // resume() counts the new session on the worker in the background: let it finish before disposing.
      await controller.warmup();
      controller.dispose();
      await server.close();
    },
  };
}

function fingerprint(file: string): { sha: string; mtimeMs: number; size: number } {
  const s = statSync(file);
  return { sha: createHash('sha256').update(readFileSync(file)).digest('hex'), mtimeMs: s.mtimeMs, size: s.size };
}

/** API messages as (role, block) pairs: merging same-role turns and string vs block content do not matter. */
function flat(messages: readonly (ApiMessage | WireMessage)[]): Array<{ role: string; block: unknown }> {
  const out: Array<{ role: string; block: unknown }> = [];
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as WireBlock[]);
    for (const b of blocks) out.push({ role: m.role, block: b });
  }
  return out;
}

for (const name of SESSIONS) {
  test(`continue ${name}: the history is its current context, its compactions are records with transcripts, the first request carries it`, async () => {
    const file = join(FIXTURES, `${name}.jsonl`);
    const before = fingerprint(file);
    const imported = await importSessionFile(file);
    assert.ok(imported.compactions.length > 0, 'each real fixture recorded a compaction');
    const r = await rig();
    try {
      const continued = await continueSession(r.controller, file, r.target);
      const c = r.controller;
      assert.equal(c.session.id, continued.id, 'the continued session is the current chat');
      // The history is the current context as imported, without the thinking blocks (signed for the recording's conversation).
      const history = withoutThinking(imported.messages).messages;
      assert.deepEqual(c.session.messages, history, 'the history is the current context as imported');
      assert.deepEqual(
        c.session.messages.map((m) => m.id),
        imported.messages.map((m) => m.id),
        'every message is there, in order',
      );
      const thinking = (ms: readonly Message[]) =>
        ms.reduce((n, m) => n + blocksOf(m).filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking').length, 0);
      assert.equal(thinking(c.session.messages), 0, 'no thinking block is sent');
      assert.equal(
        continued.droppedThinking,
        thinking(imported.messages) + imported.compactions.reduce((n, rc) => n + thinking(rc.before), 0),
      );
      if (name.startsWith('claude-code')) assert.ok(continued.droppedThinking > 0, 'the Claude Code sessions recorded thinking');
      assert.deepEqual(requestViolations(toApiMessages(c.session.messages)), []);

      const records = c.session.meta.compactions;
      assert.equal(records.length, imported.compactions.length);
      assert.equal(continued.compactions, imported.compactions.length);
      records.forEach((rec, k) => {
        const recorded = imported.compactions[k];
        assert.deepEqual(
          restoreTranscript(rec.transcriptPath, rec.transcriptSha256),
          withoutThinking(recorded.before).messages,
          `transcript ${k + 1} is its before`,
        );
        assert.equal(rec.archivedCount, recorded.before.length);
        assert.equal(rec.tokensBefore, recorded.preTokens);
        assert.equal(rec.resultLength, recorded.summary.length);
        assert.equal(rec.trigger, recorded.trigger === 'auto' ? 'auto' : 'manual');
      });
      assert.deepEqual(
        continued.transcripts,
        records.map((rec) => rec.transcriptPath),
      );

      // The chat: a divider per recorded compaction, the conversation, and where it came from.
      const items = c.chatState(true).items;
      const dividers = items.filter((i): i is Extract<ChatItem, { kind: 'compaction' }> => i.kind === 'compaction');
      assert.deepEqual(
        dividers.map((d) => d.transcriptPath),
        records.map((rec) => rec.transcriptPath),
      );
      const agent = name.startsWith('codex') ? 'Codex' : 'Claude Code';
      const k = imported.compactions.length;
      const notice = `Continued from ${agent} session ${name}.jsonl (${imported.messages.length} messages, ${k} recorded compaction${k === 1 ? '' : 's'}).`;
      assert.ok(
        items.some((i) => i.kind === 'notice' && i.message === notice),
        `the chat says: ${notice}`,
      );
      assert.equal(items.filter((i) => i.kind === 'tool').length, chatItemsOf(imported.messages).filter((i) => i.kind === 'tool').length);
      const modelNotice = items.find((i) => i.kind === 'notice' && i.message.includes(`used ${imported.model}`));
      assert.ok(modelNotice, `the recording's model (${imported.model}) differs from claude-test: a notice says so`);
      if (agent === 'Codex') assert.match((modelNotice as { message: string }).message, /not an Anthropic model/);
      const thinkingNotice = items.some((i) => i.kind === 'notice' && /thinking blocks? of .* not sent/.test(i.message));
      assert.equal(thinkingNotice, continued.droppedThinking > 0, 'the chat says when thinking was left out');

      // The inspector shows the records: one time-travel point each, before it the transcript's context.
      const view = c.inspectorSession();
      assert.equal(view.timeTravel?.points.length, k);
      assert.equal(c.inspectorSession(k).timeTravel?.at, k);

      // The first request: the imported context, then the prompt; accepted by the loopback's validation.
      r.server.queue.text('Picking up from there.');
      await c.send('Carry on from where you were.');
      const sent = r.server.messageRequests;
      assert.equal(sent.length, 1);
      assert.equal(sent[0].status, 200, 'the loopback accepted the request');
      assert.equal(sent[0].source, 'queue');
      assert.equal(sent[0].body.model, 'claude-test', 'the configured Splitpoint model, never the recording’s');
      const expected = flat(toApiMessages(history));
      const got = flat(sent[0].body.messages as WireMessage[]);
      assert.deepEqual(got.slice(0, expected.length), expected, 'the request starts with the imported context');
      assert.deepEqual(got[expected.length], { role: 'user', block: { type: 'text', text: 'Carry on from where you were.' } });
      assert.equal(
        c.chatState(true).items.some((i) => i.kind === 'error'),
        false,
      );
      assert.deepEqual(fingerprint(file), before, 'the recorded file is unchanged (bytes, size and mtime)');
    } finally {
      await r.close();
    }
  });
}

for (const name of ['codex-agentv-b', 'claude-code-cipher-box-a']) {
  test(`undo of ${name}'s last recorded compaction brings its archived context back, followed by what came after its summary`, async () => {
    const file = join(FIXTURES, `${name}.jsonl`);
    const imported = await importSessionFile(file);
    const r = await rig();
    try {
      await continueSession(r.controller, file, r.target);
      const last = imported.compactions[imported.compactions.length - 1];
      const outcome = r.controller.undo();
      assert.equal(outcome.ok, true, outcome.ok ? '' : outcome.message);
      const restored = withoutThinking([...last.before, ...imported.messages.slice(last.summary.length)]).messages;
      assert.deepEqual(r.controller.session.messages, restored);
      assert.deepEqual(requestViolations(toApiMessages(r.controller.session.messages)), []);
    } finally {
      await r.close();
    }
  });
}

test('withoutThinking: thinking and redacted thinking go, the rest of a message keeps its id; a message of thinking only goes', () => {
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: 'hi' },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Hello.' },
      ],
    },
    { id: 'a2', role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] },
    { id: 'u2', role: 'user', content: 'again' },
  ];
  const out = withoutThinking(messages);
  assert.equal(out.dropped, 2);
  assert.deepEqual(out.messages, [messages[0], { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, messages[3]]);
  assert.equal((messages[1].content as unknown[]).length, 2, 'the input is not changed');
  assert.deepEqual(withoutThinking([messages[0]]), { messages: [messages[0]], dropped: 0 });
});

test('a continued session survives a reload: listed with its compactions, resumed with the same history', async () => {
  const file = join(FIXTURES, 'claude-code-cipher-box-c.jsonl');
  const r = await rig();
  const imported = await importSessionFile(file);
  try {
    const continued = await continueSession(r.controller, file, r.target);
    await r.controller.warmup();
    r.controller.dispose();
    const again = loopbackController({
      workspace: r.target.workspaceRoot,
      storage: r.storage,
      baseURL: r.server.baseURL,
      settings: r.target.settings,
    });
    try {
      const listed = again.listSessions().find((s) => s.id === continued.id);
      assert.ok(listed, 'listed for Resume');
      assert.equal(listed.compactions, imported.compactions.length, 'no record was dropped as malformed');
      assert.match(listed.title, /^Claude Code: /);
      again.resume(continued.id);
      await again.warmup();
      assert.deepEqual(again.session.messages, withoutThinking(imported.messages).messages);
      assert.ok(again.chatState(true).items.some((i) => i.kind === 'notice' && i.message.startsWith('Continued from Claude Code session')));
    } finally {
      again.dispose();
    }
  } finally {
    await r.server.close();
  }
});

test('a session whose agent is writing its last line: continued from the lines it has finished', async () => {
  const bytes = readFileSync(join(FIXTURES, 'claude-code-cipher-box-a.jsonl'));
  const cut = 500_000; // mid-line
  assert.notEqual(bytes[cut - 1], 0x0a);
  const dir = mkdtempSync(join(tmpdir(), 'sp-continue-live-'));
  const live = join(dir, 'live.jsonl');
  const complete = join(dir, 'complete.jsonl');
  writeFileSync(live, bytes.subarray(0, cut));
  writeFileSync(complete, bytes.subarray(0, bytes.lastIndexOf(0x0a, cut - 1) + 1));
  await assert.rejects(() => importSessionFile(live), /live\.jsonl:\d+: invalid JSON/, 'the partial line alone does not import');
  const expected = await importSessionFile(complete);
  const r = await rig();
  try {
    const continued = await continueSession(r.controller, live, r.target);
    assert.equal(continued.messages, expected.messages.length);
    assert.deepEqual(r.controller.session.messages, withoutThinking(expected.messages).messages);
    assert.equal(r.controller.session.meta.compactions.length, expected.compactions.length);
  } finally {
    await r.close();
  }
});

test('a file that cannot be imported: a clear error naming it, nothing written, the current chat unchanged', async () => {
  const r = await rig();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'sp-continue-bad-'));
    const bad = join(dir, 'broken.jsonl');
    writeFileSync(bad, '{"type":"user","message":{"role":"user","content":"hi"}}\n{not json\n');
    const current = r.controller.session.id;
    const sessionsBefore = readdirSync(sessionsDirOf(r.storage)).sort();
    for (const file of [bad, join(dir, 'missing.jsonl')]) {
      await assert.rejects(
        () => continueSession(r.controller, file, r.target),
        (e: unknown) => {
          assert.ok(e instanceof ContinueSessionError, String(e));
          assert.ok(e.message.includes(file), `names the file: ${e.message}`);
          assert.equal(e.file, file);
          assert.doesNotMatch(e.message, /\n\s+at /, 'no stack trace');
          return true;
        },
      );
    }
    assert.match(
      await continueSession(r.controller, bad, r.target).then(
        () => 'continued',
        (e: Error) => e.message,
      ),
      new RegExp(`${basename(bad)}:2\\b`),
      'the bad line is named',
    );
    assert.equal(r.controller.session.id, current);
    assert.deepEqual(readdirSync(sessionsDirOf(r.storage)).sort(), sessionsBefore, 'no session files were left behind');
  } finally {
    await r.close();
  }
});
