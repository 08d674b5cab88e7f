// The controller's pins end to end in plain Node: messages from a real SDK run against the loopback
// server, pin / unpin (a tool pair moves together), onDidChangeSession, persistence across a "window
// reload", the inspector's rows and previews, and a compaction that keeps the pinned messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { loopbackController } from '../helpers/loopbackController';

test('controller: pin and unpin persist with the session, reach the inspector and survive a compaction', async () => {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-pin-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-pin-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  const controllers: AgentController[] = [];
  const make = () => {
    const c = loopbackController({ workspace, storage, baseURL });
    controllers.push(c);
    return c;
  };
  try {
    const c = make();
    server.queue.toolUse('read_file', { path: 'app.ts' }, { text: 'Let me look.' }).text('It is 41.');
    await c.send('Remember: answer in French.');
    for (let i = 0; i < 4; i++) {
      server.queue.text(`Reply ${i}.`);
      await c.send(`Question ${i}?`);
    }
    const msgs = c.session.messages;
    const prompt = msgs[0];
    const toolUse = msgs.find((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'))!;
    const toolResult = msgs[msgs.indexOf(toolUse) + 1];
    let changes = 0;
    c.onDidChangeSession(() => changes++);

    c.pin(prompt.id);
    c.pin(toolResult.id);
    assert.deepEqual(new Set(c.pinnedIds()), new Set([prompt.id, toolResult.id, toolUse.id]), 'the tool_use is pinned with its result');
    assert.ok(changes >= 2, 'each pin fires onDidChangeSession');
    assert.throws(() => c.pin('no-such-id'), /"no-such-id"/);

    // The inspector marks the rows and its previews keep the pins.
    const rows = c
      .inspectorSession()
      .rows.filter((r) => r.pinned)
      .map((r) => r.id);
    assert.deepEqual(new Set(rows), new Set([prompt.id, toolUse.id, toolResult.id]));
    const view = c.preview('sliding-window', { maxEvents: 2 }, 1);
    assert.deepEqual(
      view.pinned,
      msgs.filter((m) => c.pinnedIds().has(m.id)).map((m) => m.id),
    );

    // A window reload sees the same pins; a compaction keeps them verbatim.
    const pinned = new Set(c.pinnedIds());
    c.dispose();
    const d = make();
    assert.equal(d.session.id, c.session.id);
    assert.deepEqual(new Set(d.pinnedIds()), pinned);
    const outcome = await d.compactNow({ strategy: 'sliding-window', params: { maxEvents: 2 } });
    assert.equal(outcome.ok, true, JSON.stringify(outcome));
    const after = d.session.messages;
    for (const m of [prompt, toolUse, toolResult])
      assert.deepEqual(
        after.find((x) => x.id === m.id),
        m,
      );
    assert.deepEqual(requestViolations(toApiMessages(after)), []);

    // Unpinning the tool_use unpins its result too.
    d.unpin(toolUse.id);
    assert.deepEqual([...d.pinnedIds()], [prompt.id]);
  } finally {
    for (const c of controllers) c.dispose();
    await server.close();
  }
});
