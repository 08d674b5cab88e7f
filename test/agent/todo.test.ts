// The agent's task list end to end (issue 23): a controller over the loopback Messages API with the real
// SDK. The model calls the todo tool; the list is stored with the session (its meta file on disk), every
// next request's system prompt carries it (also after an auto-compaction that the tool's own turn
// triggers), the chat is told the list while the turn is still running, and a user's edit in the chat's
// checklist (the protocol's validated message) changes the next request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply, type ValidRequest, type WireBlock } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import type { HostSettings } from '../../src/settings/hostSettings';
import { TodoRouting } from '../../src/extension/todoRouting';
import { parseChatToHost } from '../../src/protocol/validation';
import type { HostToChat } from '../../src/protocol';
import { isSummaryRequest } from '../helpers/summaryRequest';
import { standingText, trailerOf } from '../helpers/standingText';
import { loopbackController } from '../helpers/loopbackController';

interface Rig {
  server: LoopbackAnthropic;
  storage: string;
  make(settings?: Partial<HostSettings>): AgentController;
  systems(): string[];
  /** The tool_result content the n-th agent request carries for `toolUseId`. */
  toolResult(toolUseId: string): string | undefined;
  close(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-todo-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-todo-ws-'));
  const controllers: AgentController[] = [];
  const agentRequests = () => server.messageRequests.filter((r) => !isSummaryRequest(r.body));
  return {
    server,
    storage,
    make(settings = {}) {
      const c = loopbackController({ workspace, storage, baseURL, settings });
      controllers.push(c);
      return c;
    },
    systems: () => agentRequests().map((r) => standingText(r.body)),
    toolResult(id) {
      for (const r of agentRequests())
        for (const m of r.body.messages ?? [])
          if (Array.isArray(m.content))
            for (const b of m.content as WireBlock[])
              if (b.type === 'tool_result' && b.tool_use_id === id)
                return typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
      return undefined;
    },
    async close() {
      for (const c of controllers) c.dispose();
      await server.close();
    },
  };
}

const PLAN = [
  { id: 'p1', text: 'Read the failing test', status: 'done' },
  { id: 'p2', text: 'Fix add() in math.ts', status: 'in_progress' },
  { text: 'Run the whole suite', status: 'pending' },
];
const PLAN_LINES = '[x] Read the failing test (id p1)\n[~] Fix add() in math.ts (id p2)\n[ ] Run the whole suite (id t3)';

test('the todo tool sets the list: persisted with the session, told to the chat during the turn, carried by every next request', async () => {
  const r = await rig();
  try {
    const c = r.make();
    const posted: Array<{ msg: HostToChat; busy: boolean }> = [];
    const todo = new TodoRouting(c, (msg) => posted.push({ msg, busy: c.busy }));
    c.onDidChangeSession(() => todo.send());
    r.server.queue.toolUse([{ name: 'todo', input: { items: PLAN }, id: 'toolu_plan' }], { text: 'Planning.' }).text('Working on it.');
    await c.send('Fix the add bug.');
    // The result tells the model the list was saved (and what it holds).
    const result = r.toolResult('toolu_plan')!;
    assert.match(result, /^Task list saved \(3 items, 1 done\)/);
    assert.ok(result.includes(PLAN_LINES), result);
    // The request that followed the tool call already carried the list (after its cache breakpoints); the first did not.
    const [first, second] = r.systems();
    assert.ok(!first.includes('# Task list'));
    assert.ok(second.includes(PLAN_LINES), second);
    // The chat was told while the turn ran (not only at its end).
    const live = posted.filter((p) => p.msg.type === 'todo' && p.msg.items.length > 0 && p.busy);
    assert.equal(live.length, 1);
    assert.deepEqual(
      (live[0].msg as Extract<HostToChat, { type: 'todo' }>).items.map((t) => t.id),
      ['p1', 'p2', 't3'],
    );
    // Stored in the session's meta file, so a window reload keeps it.
    const metaFile = readdirSync(r.storage, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith(`${c.session.id}.meta.json`));
    assert.ok(metaFile, 'the session has a meta file');
    const meta = JSON.parse(readFileSync(join(r.storage, metaFile), 'utf8')) as { todo: unknown };
    assert.deepEqual(meta.todo, [
      { id: 'p1', text: 'Read the failing test', status: 'done' },
      { id: 'p2', text: 'Fix add() in math.ts', status: 'in_progress' },
      { id: 't3', text: 'Run the whole suite', status: 'pending' },
    ]);
    const id = c.session.id;
    c.dispose();
    const d = r.make();
    assert.equal(d.session.id, id);
    r.server.queue.text('Still on it.');
    await d.send('Where are we?');
    assert.ok(r.systems().at(-1)!.includes(PLAN_LINES));
  } finally {
    await r.close();
  }
});

test('a bad todo input is an error naming the field, and the list stays as it was', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue
      .toolUse([{ name: 'todo', input: { items: [{ text: 'ok', status: 'pending' }] }, id: 'toolu_ok' }])
      .toolUse([
        {
          name: 'todo',
          input: {
            items: [
              { text: 'a', status: 'pending' },
              { text: 'b', status: 'finished' },
            ],
          },
          id: 'toolu_bad',
        },
      ])
      .toolUse([{ name: 'todo', input: { items: 'do it all' }, id: 'toolu_str' }])
      .text('Done.');
    await c.send('Plan it.');
    assert.equal(r.toolResult('toolu_bad'), 'todo: items[1].status: expected one of pending, in_progress, done, got "finished"');
    assert.match(r.toolResult('toolu_str')!, /^todo: items: expected an array of \{ id\?, text, status \}, got "do it all"$/);
    assert.deepEqual(c.session.meta.todo, [{ id: 't1', text: 'ok', status: 'pending' }]);
  } finally {
    await r.close();
  }
});

test("the list the tool set survives an auto-compaction of the same run verbatim; the user's checklist edit changes the next request", async () => {
  const r = await rig();
  try {
    const c = r.make({
      contextWindow: 6_000,
      maxOutputTokens: 1_000,
      autoCompact: { enabled: true, threshold: 0.5, strategy: 'sliding-window' },
      strategyParams: { 'sliding-window': { maxEvents: 4 } },
    });
    let calls = 0;
    r.server.responder = (req) => {
      if (isSummaryRequest(req.body)) return reply.text('SUMMARY: the user asked for a fix.');
      calls++;
      if (calls === 1) return reply.toolUse([{ name: 'todo', input: { items: PLAN }, id: 'toolu_plan' }]);
      // Long explanations fill the window so the budget trigger compacts in the middle of the run.
      if (calls <= 8)
        return reply.toolUse('list_files', { path: '.' }, { text: `Step ${calls}: ${'checking the workspace. '.repeat(120)}` });
      return reply.text('All steps done.');
    };
    await c.send('Fix the add bug, step by step.');
    assert.ok(
      c.session.meta.compactions.some((x) => x.trigger === 'auto'),
      'an auto-compaction ran during the run',
    );
    const compactedAt = c.session.meta.compactions[0].at;
    assert.ok(!c.session.messages.some((m) => JSON.stringify(m.content).includes('toolu_plan')), 'the todo call itself was compacted away');
    const systems = r.systems();
    assert.ok(systems.length >= 9);
    for (const s of systems.slice(1)) assert.ok(s.includes(PLAN_LINES), 'every request after the tool call carries the whole list');
    assert.ok(compactedAt > 0);
    // The user edits the checklist: the chat posts the whole list; the host validates it and stores it.
    const todo = new TodoRouting(c, () => {});
    const edit = parseChatToHost({
      type: 'setTodo',
      items: [
        { id: 'p1', text: 'Read the failing test', status: 'done' },
        { id: 'p2', text: 'Fix add() in math.ts', status: 'done' },
        { id: 'u4', text: 'Add a regression test', status: 'pending' },
      ],
    });
    assert.ok(edit && edit.type === 'setTodo');
    todo.handlers().setTodo(edit);
    assert.equal(parseChatToHost({ type: 'setTodo', items: [{ id: 'x', text: '', status: 'done' }] }), null, 'an empty text is refused');
    r.server.responder = undefined;
    r.server.queue.text('Adding the test.');
    await c.send('Go on.');
    const last = r.systems().at(-1)!;
    assert.ok(last.includes('[x] Fix add() in math.ts (id p2)\n[ ] Add a regression test (id u4)'), last);
    assert.ok(!last.includes('Run the whole suite'));
  } finally {
    await r.close();
  }
});

test('a changed task list never invalidates the cached conversation: it is sent after the last cache breakpoint, not in the system prompt', async () => {
  const r = await rig();
  try {
    const c = r.make({ model: 'claude-sonnet-4-5' }); // the real minimum cacheable prefix applies
    const long = 'context '.repeat(900);
    r.server.queue
      .toolUse([{ name: 'todo', input: { items: PLAN }, id: 'toolu_plan' }], { text: `Planning. ${long}` })
      .toolUse([{ name: 'todo', input: { items: PLAN.map((p) => ({ ...p, status: 'done' })) }, id: 'toolu_done' }])
      .text('All done.');
    await c.send(`Fix the add bug. ${long}`);
    const requests = r.server.messageRequests.filter((q) => !isSummaryRequest(q.body)) as ValidRequest[];
    assert.equal(requests.length, 3);
    for (const q of requests) assert.ok(!standingText({ system: q.body.system }).includes('# Task list'), 'never in the system prompt');
    assert.ok(trailerOf(requests[1].body).includes(PLAN_LINES));
    assert.ok(trailerOf(requests[2].body).includes('[x] Run the whole suite (id t3)'));
    // Each call reads the whole previous call from the cache although the list changed in between, all
    // but the previous list itself (it was after the breakpoint); in the system prompt, a changed list
    // would leave only the tools cached.
    assert.equal(requests[1].cache?.cacheReadTokens, requests[0].inputTokens, 'call 2 reads all of call 1');
    const unread = requests[1].inputTokens - (requests[2].cache?.cacheReadTokens ?? 0);
    assert.ok(
      unread >= 0 && unread <= trailerOf(requests[1].body).length / 2,
      `call 3 reads all of call 2 but its task list (${unread} tokens unread)`,
    );
  } finally {
    await r.close();
  }
});
