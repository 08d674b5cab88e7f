// Standing instructions end to end (issue 23): a controller over the loopback Messages API with the real
// SDK; what each request's system prompt carries is read from the requests the server received.
// AGENTS.md / CLAUDE.md at the root, a changed file, a nested file after a read in its folder, the caps
// with their note, the trust rule, and the instructions and task list after an auto-compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply, type ValidRequest, type WireBlock } from '../loopback/anthropic-server';
import type { AgentController, ControllerDeps } from '../../src/agent/service/controller';
import type { HostSettings } from '../../src/settings/hostSettings';
import { ledgerPromptId, setSessionTodo } from '../../src/core';
import { isSummaryRequest } from '../helpers/summaryRequest';
import { standingText } from '../helpers/standingText';
import { loopbackController } from '../helpers/loopbackController';

interface Rig {
  server: LoopbackAnthropic;
  workspace: string;
  make(settings?: Partial<HostSettings>, deps?: Partial<ControllerDeps>): AgentController;
  /** The system prompt text of every agent request (summary requests left out), in order. */
  systems(): string[];
  close(): Promise<void>;
}

async function rig(files: Record<string, string> = {}): Promise<Rig> {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-instr-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-instr-ws-'));
  for (const [rel, text] of Object.entries(files)) write(workspace, rel, text);
  const controllers: AgentController[] = [];
  return {
    server,
    workspace,
    make(settings = {}, deps = {}) {
      const c = loopbackController({ workspace, storage, baseURL, settings, deps });
      controllers.push(c);
      return c;
    },
    systems: () => server.messageRequests.filter((r) => !isSummaryRequest(r.body)).map((r) => standingText(r.body)),
    async close() {
      for (const c of controllers) c.dispose();
      await server.close();
    },
  };
}

function write(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

function systemText(system: string | WireBlock[] | undefined): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((b) => String(b.text ?? '')).join('\n');
}

const AGENTS = 'Use tabs, never spaces. Run `make check` before saying done.';
const CLAUDE = 'Answer in British English. Never touch generated/.';

test('the request system prompt carries AGENTS.md and CLAUDE.md, each under its name, and the user setting', async () => {
  const r = await rig({ 'AGENTS.md': AGENTS, 'CLAUDE.md': CLAUDE, 'docs/AGENTS.md': 'NESTED-DOCS-RULE' });
  try {
    const c = r.make({ instructions: 'Call me Sam.' });
    r.server.queue.text('ok');
    await c.send('hello');
    const [system] = r.systems();
    assert.match(system, /## AGENTS\.md\n/);
    assert.ok(system.includes(AGENTS));
    assert.match(system, /## CLAUDE\.md\n/);
    assert.ok(system.includes(CLAUDE));
    assert.ok(system.includes('Call me Sam.'));
    assert.ok(system.indexOf(AGENTS) < system.indexOf(CLAUDE), 'AGENTS.md before CLAUDE.md');
    // A nested file is not sent before the agent works in its folder.
    assert.ok(!system.includes('NESTED-DOCS-RULE'));
    assert.deepEqual(
      c.standing.list().map((i) => [i.name, i.kind, i.sent, i.truncated]),
      [
        ['splitpoint.instructions', 'setting', true, false],
        ['AGENTS.md', 'file', true, false],
        ['CLAUDE.md', 'file', true, false],
      ],
    );
  } finally {
    await r.close();
  }
});

test('a changed file changes the next request; a deleted one leaves it', async () => {
  const r = await rig({ 'AGENTS.md': 'RULE-ONE' });
  try {
    const c = r.make();
    r.server.queue.text('ok').text('ok').text('ok');
    await c.send('first');
    write(r.workspace, 'AGENTS.md', 'RULE-TWO'); // same size: the mtime tells it changed
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(r.workspace, 'AGENTS.md'), later, later);
    await c.send('second');
    write(r.workspace, 'AGENTS.md', '');
    await c.send('third');
    const [a, b, third] = r.systems();
    assert.ok(a.includes('RULE-ONE') && !a.includes('RULE-TWO'));
    assert.ok(b.includes('RULE-TWO') && !b.includes('RULE-ONE'));
    assert.ok(!third.includes('RULE-TWO') && !third.includes('## AGENTS.md'));
  } finally {
    await r.close();
  }
});

test('a nested AGENTS.md joins the request after the agent reads a file in its folder', async () => {
  const r = await rig({
    'AGENTS.md': AGENTS,
    'packages/api/AGENTS.md': 'API-RULE: every handler validates its input.',
    'packages/api/src/x.ts': 'x',
  });
  try {
    const c = r.make();
    r.server.queue.toolUse('read_file', { path: 'packages/api/src/x.ts' }).text('done');
    await c.send('look at the api');
    const [before, after] = r.systems();
    assert.ok(!before.includes('API-RULE'));
    assert.match(after, /## packages\/api\/AGENTS\.md\nAPI-RULE: every handler validates its input\./);
    assert.ok(after.indexOf(AGENTS) < after.indexOf('API-RULE'), 'the root file first');
  } finally {
    await r.close();
  }
});

test('the caps: a file over 16,000 characters is cut with a note; past 48,000 in all, the rest is cut', async () => {
  const line = (tag: string) => `${tag} ${'x'.repeat(70)}\n`;
  const big = (tag: string, n: number) => Array.from({ length: n }, () => line(tag)).join('');
  const r = await rig({
    'AGENTS.md': big('A', 300), // 22,200 chars
    'CLAUDE.md': big('C', 200), // 14,800
    'pkg/AGENTS.md': big('P', 300),
    'pkg/CLAUDE.md': big('Q', 300),
    'pkg/a.ts': '',
  });
  try {
    const c = r.make();
    r.server.queue.toolUse('read_file', { path: 'pkg/a.ts' }).text('done');
    await c.send('go');
    const system = r.systems()[1];
    const info = new Map(c.standing.list().map((i) => [i.name, i]));
    const agents = info.get('AGENTS.md')!;
    assert.equal(agents.originalChars, 300 * 73);
    assert.ok(agents.truncated && agents.chars <= 16_000 && agents.chars > 15_000, `AGENTS.md sent ${agents.chars}`);
    assert.match(
      system,
      new RegExp(`\\[Cut to fit the instruction caps: ${agents.chars.toLocaleString('en-US')} of 21,900 characters of AGENTS\\.md`),
    );
    assert.equal(info.get('CLAUDE.md')!.truncated, false);
    const total = [...info.values()].reduce((n, i) => n + i.chars, 0);
    assert.ok(total <= 48_000, `total ${total}`);
    assert.equal(info.get('pkg/CLAUDE.md')!.truncated, true, 'the last file is cut by the total cap');
    assert.match(system, /characters of pkg\/CLAUDE\.md are included/);
    // Cut at a line end: whole lines of AGENTS.md are sent (the last newline is the cut).
    assert.equal((system.match(/^A x+$/gm) ?? []).length, (agents.chars + 1) / 73);
  } finally {
    await r.close();
  }
});

test('untrusted workspace: the files are listed, not sent; after "Allow" the next request carries them', async () => {
  const r = await rig({ 'AGENTS.md': AGENTS });
  try {
    let remembered = 0;
    const c = r.make({ instructions: 'Call me Sam.' }, { trusted: false, rememberAllowed: () => remembered++ });
    r.server.queue.text('ok').text('ok');
    await c.send('first');
    assert.deepEqual(
      c.standing.list().map((i) => [i.name, i.sent]),
      [
        ['splitpoint.instructions', true],
        ['AGENTS.md', false],
      ],
    );
    assert.equal(c.standing.listedOnly, true);
    assert.ok(!r.systems()[0].includes(AGENTS), 'not sent while untrusted');
    assert.ok(!r.systems()[0].includes('## AGENTS.md'));
    assert.ok(r.systems()[0].includes('Call me Sam.'), "the user's own setting is sent");
    c.standing.allow();
    assert.equal(remembered, 1);
    await c.send('second');
    assert.ok(r.systems()[1].includes(AGENTS));
    // Remembered per workspace: a new controller told so sends them from its first request.
    const again = r.make({}, { trusted: false, instructionsAllowed: true });
    r.server.queue.text('ok');
    await again.send('third');
    assert.ok(r.systems()[2].includes(AGENTS));
  } finally {
    await r.close();
  }
});

test('after an auto-compaction the next request still carries the instructions, a kept prompt and the task list verbatim', async () => {
  const r = await rig({ 'AGENTS.md': AGENTS, 'CLAUDE.md': CLAUDE });
  try {
    const c = r.make({
      contextWindow: 6_000,
      maxOutputTokens: 1_000,
      autoCompact: { enabled: true, threshold: 0.5, strategy: 'recursive-summarization' },
      strategyParams: { 'recursive-summarization': { maxEventsToKeep: 2, overlapSize: 1 } },
    });
    r.server.responder = (req) => (isSummaryRequest(req.body) ? reply.text('SUMMARY of the chat so far.') : undefined);
    const todo = [
      { id: 'a', text: 'Fix the parser', status: 'done' as const },
      { id: 'b', text: 'Port the lexer to tabs', status: 'in_progress' as const },
      { id: 'c', text: 'Write the changelog', status: 'pending' as const },
    ];
    setSessionTodo(c.session, todo);
    r.server.queue.text('Noted.');
    await c.send('KEEP-ME: always answer with a haiku.');
    assert.equal(c.standing.keep(c.session.messages[0].id), true);
    for (let i = 0; i < 6; i++) {
      r.server.queue.text(`Answer ${i}: ${'a long explanation of the code. '.repeat(60)}`);
      await c.send(`Question ${i}`);
    }
    assert.ok(
      c.session.meta.compactions.length > 0,
      JSON.stringify(c.chatState(true).items.filter((i) => i.kind !== 'user' && i.kind !== 'assistant')),
    );
    const keptId = c.session.meta.keptInstructions![0].messageId;
    assert.ok(!c.session.messages.some((m) => m.id === keptId), 'the prompt itself was archived');
    const last = r.systems().at(-1)!;
    assert.ok(last.includes(AGENTS) && last.includes(CLAUDE));
    assert.ok(last.includes('KEEP-ME: always answer with a haiku.'));
    assert.ok(last.includes('[x] Fix the parser (id a)\n[~] Port the lexer to tabs (id b)\n[ ] Write the changelog (id c)'), last);
    // Every request carried the same standing section: it is outside what compaction rewrites.
    const section = (s: string) => s.slice(s.indexOf('# Standing instructions'));
    assert.equal(section(last), section(r.systems()[1]));
    assert.equal(c.standing.remove(keptId), true);
    r.server.queue.text('ok');
    await c.send('after removal');
    assert.ok(!r.systems().at(-1)!.includes('KEEP-ME'));
  } finally {
    await r.close();
  }
});

test('an archived prompt kept from the ledger joins the requests; kept instructions persist with the session (reload)', async () => {
  const r = await rig();
  try {
    const c = r.make();
    r.server.queue.text('ok');
    await c.send('first');
    const text = 'LEDGER-PROMPT: never use default exports.';
    assert.equal(c.standing.keepText(ledgerPromptId(text), text), true);
    assert.equal(c.standing.keepText(ledgerPromptId(text), text), false, 'kept once');
    r.server.queue.text('ok');
    await c.send('second');
    assert.ok(r.systems()[1].includes(text));
    assert.ok(!r.systems()[0].includes(text));
    // A reload: a new controller on the same storage resumes the session and sends it still.
    c.dispose();
    const again = r.make();
    assert.deepEqual(
      again.standing.list().map((i) => [i.kind, i.messageId]),
      [['chat', ledgerPromptId(text)]],
    );
    r.server.queue.text('ok');
    await again.send('third');
    assert.ok(r.systems()[2].includes(text));
  } finally {
    await r.close();
  }
});

test('the standing section is stable between requests: with AGENTS.md each call reads the whole previous one from the prompt cache', async () => {
  const r = await rig({ 'AGENTS.md': `${AGENTS}\n`.repeat(40), 'app.ts': 'export const answer = 41;\n' });
  try {
    const c = r.make({ model: 'claude-sonnet-4-5' }); // the real minimum cacheable prefix applies
    r.server.queue.toolUse('read_file', { path: 'app.ts' }).text('It is 41.').text('Still 41.');
    await c.send('What is the answer?');
    await c.send('And now?');
    const [first, second, third] = [0, 1, 2].map((n) => r.server.messageRequests[n] as ValidRequest);
    assert.ok(systemText(first!.body.system).includes(AGENTS));
    assert.equal(second!.cache?.cacheReadTokens, first!.inputTokens, 'call 2 reads all of call 1');
    assert.equal(third!.cache?.cacheReadTokens, second!.inputTokens, 'the next prompt reads the whole previous turn');
  } finally {
    await r.close();
  }
});
