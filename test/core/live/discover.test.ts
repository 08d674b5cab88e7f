// discoverSessions on a fake home holding the real fixtures where Claude Code and Codex keep them: which
// sessions are listed, in which order, and what each row says (every expected figure is computed from
// the raw lines, or by the importers for the compaction count); bad input as rows' problems and problem lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSessionFile } from '../../../src/core/importers';
import { discoverSessions } from '../../../src/core/live/discover';
import { CompactionScanCache } from '../../../src/core/live/compactionScan';
import { PeekMemo } from '../../../src/core/live/peek';
import { SessionFileStore } from '../../../src/core/session/session';
import {
  CLAUDE_FIXTURES,
  CODEX_FIXTURES,
  FIXTURES,
  makeFakeHome,
  rawCallTokens,
  rawLastTimestamp,
  rawModel,
  withCodexCwd,
} from './fakeHome';

const isRoot = process.getuid?.() === 0;

test('lists the Claude Code and Codex sessions of the workspace, newest activity first, with the recorded figures', async () => {
  const fake = makeFakeHome();
  try {
    const { sessions, problems } = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {} });
    assert.deepEqual(problems, []);
    const listed = sessions.map((s) => s.file);
    const expected = Object.values(fake.files).sort((a, b) => rawLastTimestamp(b) - rawLastTimestamp(a));
    assert.deepEqual(listed, expected, 'every session of the workspace (a subfolder too), newest last line first');
    for (const other of fake.others) assert.ok(!listed.includes(other), `${other} ran in another folder`);
    for (const [name, file] of Object.entries(fake.files)) {
      const row = sessions.find((s) => s.file === file)!;
      const codex = CODEX_FIXTURES.includes(name);
      const text = readFileSync(file, 'utf8');
      assert.equal(row.agent, codex ? 'codex' : 'claude-code', name);
      assert.equal(row.model, rawModel(file, codex), name);
      assert.equal(row.contextTokens, rawCallTokens(text, codex).at(-1), `${name}: the last call's recorded input`);
      assert.equal(row.compactions, (await importSessionFile(file)).compactions.length, `${name}: compactions as the importer counts them`);
      assert.ok(row.compactions >= 1, name);
      assert.equal(row.contextWindow, codex ? 258_400 : 200_000, name);
      assert.equal(row.lastActivity, rawLastTimestamp(file), name);
      assert.equal(row.writing, false, `${name}: last written an hour ago`);
      assert.equal(row.problem, undefined, name);
      if (codex) assert.ok(row.cwd === fake.ws || row.cwd === join(fake.ws, 'packages', 'api'), name);
      else assert.equal(row.cwd, '/Users/michael/Code/cipher-box', `${name}: the cwd its lines record`);
    }
    const title = (name: string) => sessions.find((s) => s.file === fake.files[name])!.title;
    // The first genuine prompt: a custom slash command as typed; Codex's first prompt after the AGENTS.md
    // and environment injections.
    assert.equal(title('claude-code-cipher-box-a.jsonl'), '/gsd:progress');
    assert.equal(title('claude-code-cipher-box-c.jsonl'), '/security:review all of phase 14 work');
    assert.match(title('codex-agentv-a.jsonl') ?? '', /^we currently have beds created to implement front end/);
    assert.match(title('codex-agentv-b.jsonl') ?? '', /^in https:\/\/github\.com\/vercel-labs\/agent-eval/);
  } finally {
    fake.remove();
  }
});

test("CLAUDE_CONFIG_DIR and CODEX_HOME name the agents' folders; a rename and a summary are titles", async () => {
  const fake = makeFakeHome();
  try {
    const claudeDir = join(fake.root, 'claude-config');
    const codexDir = join(fake.root, 'codex-home');
    const project = join(claudeDir, 'projects', fake.ws.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(project, { recursive: true });
    const renamed = join(project, 'renamed.jsonl');
    const source = readFileSync(join(FIXTURES, CLAUDE_FIXTURES[0]), 'utf8');
    writeFileSync(renamed, source + JSON.stringify({ type: 'custom-title', customTitle: 'Fix the\nmultiselect', sessionId: 'x' }) + '\n');
    const summarized = join(project, 'summarized.jsonl');
    writeFileSync(summarized, JSON.stringify({ type: 'summary', summary: 'Multiselect fix', leafUuid: 'u' }) + '\n' + source);
    const day = join(codexDir, 'sessions', '2026', '07', '01');
    mkdirSync(day, { recursive: true });
    const rollout = join(day, 'rollout-x.jsonl');
    writeFileSync(rollout, withCodexCwd(readFileSync(join(FIXTURES, CODEX_FIXTURES[0]), 'utf8'), fake.ws));
    const { sessions } = await discoverSessions({
      cwds: [fake.ws],
      home: fake.home,
      env: { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexDir },
    });
    assert.deepEqual(sessions.map((s) => s.file).sort(), [renamed, rollout, summarized].sort(), 'only the folders the environment names');
    assert.equal(sessions.find((s) => s.file === renamed)?.title, 'Fix the multiselect');
    assert.equal(sessions.find((s) => s.file === summarized)?.title, 'Multiselect fix');
  } finally {
    fake.remove();
  }
});

test('project folder spellings (a long path cut with a hash, only separators replaced), a folder through a link; no sub-agent files', async () => {
  const fake = makeFakeHome();
  try {
    const projects = join(fake.home, '.claude', 'projects');
    const long = join(fake.root, 'x'.repeat(120), 'y'.repeat(120));
    mkdirSync(long, { recursive: true });
    const cut = join(projects, `${long.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200)}-1a2b3c`);
    const old = join(projects, fake.ws.replace(/\//g, '-'));
    for (const dir of [cut, old]) mkdirSync(dir, { recursive: true });
    copyFileSync(join(FIXTURES, CLAUDE_FIXTURES[1]), join(cut, 'long.jsonl'));
    copyFileSync(join(FIXTURES, CLAUDE_FIXTURES[1]), join(old, 'old.jsonl'));
    writeFileSync(
      join(fake.claudeProject, 'agent-1234.jsonl'),
      JSON.stringify({ type: 'user', isSidechain: true, uuid: 'a', parentUuid: null, message: { role: 'user', content: 'x' } }) + '\n',
    );
    // The workspace opened through a symbolic link: the agents recorded its real path.
    const link = join(fake.root, 'link-to-project');
    symlinkSync(fake.ws, link);
    const r = await discoverSessions({ cwds: [long, link], home: fake.home, env: {} });
    const names = r.sessions.map((s) => s.file);
    assert.ok(names.includes(join(cut, 'long.jsonl')), 'the long path, matched by its first 200 characters');
    assert.ok(names.includes(join(old, 'old.jsonl')), 'the older spelling (dots kept)');
    assert.ok(!names.some((f) => f.endsWith('agent-1234.jsonl')), 'a sub-agent transcript');
    for (const file of Object.values(fake.files)) assert.ok(names.includes(file), `${file}, through the link`);
  } finally {
    fake.remove();
  }
});

test('limit reads only the newest files by mtime; a file appended to just now, or ending mid-line, is being written', async () => {
  const fake = makeFakeHome();
  try {
    const newest = fake.files['claude-code-cipher-box-a.jsonl'];
    const now = Date.now();
    utimesSync(newest, now / 1000, now / 1000);
    const limited = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, limit: 1, now: () => now + 2000 });
    assert.deepEqual(
      limited.sessions.map((s) => [s.file, s.writing]),
      [[newest, true]],
    );
    const half = fake.files['claude-code-cipher-box-b.jsonl'];
    writeFileSync(half, readFileSync(half, 'utf8') + '{"type":"assistant","message":{"id":"m","usa');
    const past = now / 1000 - 3600;
    utimesSync(half, past, past);
    const r = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, now: () => now + 60_000 });
    const row = r.sessions.find((s) => s.file === half)!;
    assert.equal(row.writing, true, 'its last line is unfinished');
    assert.equal(
      row.contextTokens,
      rawCallTokens(readFileSync(join(FIXTURES, CLAUDE_FIXTURES[1]), 'utf8'), false).at(-1),
      'the unfinished line is not read',
    );
    assert.equal(r.sessions.find((s) => s.file === newest)?.writing, false, 'a minute later');
  } finally {
    fake.remove();
  }
});

test('bad input: an unknown format and an empty file are rows with a problem; a vanished file and an unreadable folder are problem lines', async () => {
  const fake = makeFakeHome();
  try {
    const unknown = join(fake.claudeProject, 'notes.jsonl');
    writeFileSync(unknown, '{"hello":"world"}\n');
    const empty = join(fake.claudeProject, 'empty.jsonl');
    writeFileSync(empty, '');
    const vanishing = fake.files['claude-code-cipher-box-c.jsonl'];
    let deleted = false;
    // `now` is read between a file's stat and its read: deleting there is the race of an agent removing a session.
    const now = () => {
      if (!deleted) {
        deleted = true;
        unlinkSync(vanishing);
      }
      return Date.now();
    };
    utimesSync(vanishing, Date.now() / 1000, Date.now() / 1000);
    const r = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, now });
    assert.match(r.sessions.find((s) => s.file === unknown)?.problem ?? '', /not a Claude Code session.*unrecognised format/);
    assert.match(r.sessions.find((s) => s.file === empty)?.problem ?? '', /empty/);
    assert.ok(!r.sessions.some((s) => s.file === vanishing));
    assert.deepEqual(r.problems, [`${vanishing}: the file vanished before it was read`]);
    const small = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, maxOpenBytes: 2 * 2 ** 20 });
    const big = small.sessions.find((s) => s.file === fake.files['codex-agentv-b.jsonl']);
    assert.equal(big?.problem, 'the file is larger than 2 MB: it can be listed, not opened');
    assert.equal(big?.contextTokens, rawCallTokens(readFileSync(big.file, 'utf8'), true).at(-1), 'its figures are still read');
    if (!isRoot) {
      chmodSync(fake.claudeProject, 0o000);
      try {
        const denied = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {} });
        assert.equal(denied.problems.length, 1);
        assert.match(
          denied.problems[0],
          new RegExp(`^${fake.claudeProject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot list the folder \\(EACCES\\)`),
        );
        assert.equal(denied.sessions.filter((s) => s.agent === 'codex').length, 2, 'the other agent still listed');
      } finally {
        chmodSync(fake.claudeProject, 0o755);
      }
    }
    rmSync(join(fake.home, '.codex'), { recursive: true });
    rmSync(join(fake.home, '.claude'), { recursive: true });
    const none = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {} });
    assert.deepEqual(none, { sessions: [], problems: [] }, 'no agent installed is no problem');
  } finally {
    fake.remove();
  }
});

test('a refresh reads only what changed: the compaction count continues when a file only grew, starts over when it was replaced', async () => {
  const fake = makeFakeHome();
  try {
    const cache = new CompactionScanCache();
    const memo = new PeekMemo();
    const file = fake.files['claude-code-cipher-box-a.jsonl'];
    const size = readFileSync(file).length;
    const first = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, compactionCache: cache, peekMemo: memo });
    assert.equal(memo.reads, 5);
    const unchanged = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, compactionCache: cache, peekMemo: memo });
    assert.deepEqual(unchanged, first);
    assert.equal(memo.reads, 5, 'an unchanged file is not read again');
    const read = cache.bytesRead;
    const total = Object.values(fake.files).reduce((sum, f) => sum + readFileSync(f).length, 0);
    assert.equal(read, total, 'the first discovery reads every listed file once');
    const boundary =
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'manual', preTokens: 1 } }) + '\n';
    writeFileSync(file, boundary, { flag: 'a' });
    const again = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, compactionCache: cache, peekMemo: memo });
    assert.equal(memo.reads, 6, 'the grown file is read again');
    assert.equal(again.sessions.find((s) => s.file === file)?.contextTokens, null, 'compacted after its last call');
    const count = (r: typeof first) => r.sessions.find((s) => s.file === file)!.compactions;
    assert.equal(count(again), count(first) + 1);
    const marker = '"subtype":"compact_boundary"';
    assert.equal(cache.bytesRead - read, boundary.length + marker.length - 1, 'only the appended bytes (and a marker length before them)');
    // Replaced by a copy without the appended line: a new inode, counted from the start.
    const copy = `${file}.new`;
    copyFileSync(join(FIXTURES, CLAUDE_FIXTURES[0]), copy);
    rmSync(file);
    copyFileSync(copy, file);
    rmSync(copy);
    const replaced = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, compactionCache: cache, peekMemo: memo });
    assert.equal(replaced.sessions.find((s) => s.file === file)?.contextTokens, first.sessions.find((s) => s.file === file)?.contextTokens);
    assert.equal(count(replaced), count(first));
    assert.ok(size > 0);
  } finally {
    fake.remove();
  }
});

test('a marker split across two read chunks is counted once; a quoted one is not counted', async () => {
  const fake = makeFakeHome();
  try {
    const file = join(fake.root, 'big.jsonl');
    const marker = '"subtype":"compact_boundary"';
    const chunk = 1 << 20;
    // One padding line, then the marker's line: the marker's first 10 bytes end the first 1 MiB chunk.
    const line = `{"type":"system",${marker}}\n`;
    const padding = chunk - 10 - line.indexOf(marker);
    const head = JSON.stringify({ type: 'progress', data: 'x'.repeat(padding - 30) }) + '\n';
    const quoted = JSON.stringify({ type: 'user', text: line }) + '\n';
    writeFileSync(file, head + line + quoted);
    const text = readFileSync(file, 'utf8');
    const at = Buffer.byteLength(text.slice(0, text.indexOf(marker)));
    assert.ok(at < chunk && at + marker.length > chunk, `the marker straddles the chunk boundary (at ${at})`);
    const cache = new CompactionScanCache();
    const { size, mtimeMs, ino } = await import('node:fs').then((fs) => fs.statSync(file));
    assert.equal(await cache.count(file, marker, { size, mtimeMs, ino }), 1);
  } finally {
    fake.remove();
  }
});

test("Splitpoint's own sessions: title and compactions from the meta, the last recorded call from the tail", async () => {
  const fake = makeFakeHome();
  try {
    const dir = join(fake.root, 'splitpoint-sessions');
    const store = new SessionFileStore(dir);
    const usage = {
      inputTokens: 1_000,
      cacheReadTokens: 40_000,
      cacheCreationTokens: 2_000,
      outputTokens: 300,
      model: 'claude-sonnet-4-5',
    };
    store.append('chat1', [
      { id: 'u1', role: 'user', content: 'Refactor the cart', createdAt: 1_000 },
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Done' }], usage, createdAt: 2_000 },
    ]);
    store.writeMeta({ id: 'chat1', title: 'Cart refactor', createdAt: 1_000, updatedAt: 2_000, compactions: [] });
    writeFileSync(join(dir, 'stray.jsonl'), '{}\n');
    const r = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {}, splitpointDirs: [dir, join(fake.root, 'none')] });
    const mine = r.sessions.filter((s) => s.agent === 'splitpoint');
    assert.deepEqual(r.problems, []);
    assert.equal(mine.length, 1, 'a .jsonl without its meta is not a session');
    assert.deepEqual(
      { ...mine[0], writing: false },
      {
        file: join(dir, 'chat1.jsonl'),
        agent: 'splitpoint',
        cwd: null,
        model: 'claude-sonnet-4-5',
        title: 'Cart refactor',
        lastActivity: 2_000,
        contextTokens: 43_000,
        contextWindow: 200_000,
        compactions: 0,
        writing: false,
      },
    );
  } finally {
    fake.remove();
  }
});

test('a Codex session_meta whose cwd comes after long instructions is still read; a rollout without one is not listed', async () => {
  const fake = makeFakeHome();
  try {
    const day = join(fake.home, '.codex', 'sessions', '2026', '07', '02');
    mkdirSync(day, { recursive: true });
    const source = readFileSync(join(FIXTURES, CODEX_FIXTURES[0]), 'utf8');
    const rest = source.slice(source.indexOf('\n'));
    const meta = (payload: object) => JSON.stringify({ timestamp: '2026-07-02T00:00:00.000Z', type: 'session_meta', payload });
    const late = join(day, 'rollout-late.jsonl');
    writeFileSync(late, meta({ id: 'x', instructions: 'i'.repeat(40_000), cwd: fake.ws }) + rest);
    const none = join(day, 'rollout-none.jsonl');
    writeFileSync(none, meta({ id: 'y' }) + rest);
    const r = await discoverSessions({ cwds: [fake.ws], home: fake.home, env: {} });
    const files = r.sessions.map((s) => s.file);
    assert.ok(files.includes(late));
    assert.ok(!files.includes(none));
    assert.deepEqual(r.problems, []);
  } finally {
    fake.remove();
  }
});
