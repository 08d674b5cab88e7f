// `splitpoint sessions` (the built CLI, a child process) on a fake home holding the real fixtures where
// Claude Code and Codex keep them, the agents' folders named by HOME, CLAUDE_CONFIG_DIR and CODEX_HOME.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCli } from './builtCli';
import { importSessionFile } from '../../src/core/importers';
import { CODEX_FIXTURES, makeFakeHome, rawCallTokens, rawLastTimestamp, rawModel, type FakeHome } from '../core/live/fakeHome';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI with the fake home as HOME (the agents' own variables unset unless given). */
async function run(fake: FakeHome, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  const cli = await builtCli();
  const base: NodeJS.ProcessEnv = { ...process.env, HOME: fake.home, ...env };
  if (!('CLAUDE_CONFIG_DIR' in env)) delete base.CLAUDE_CONFIG_DIR;
  if (!('CODEX_HOME' in env)) delete base.CODEX_HOME;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...args], { encoding: 'utf8', env: base, cwd: cwd ?? process.cwd() }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

const KEYS = ['file', 'agent', 'cwd', 'model', 'title', 'lastActivity', 'contextTokens', 'contextWindow', 'compactions', 'writing'];

test('sessions --json: the workspace sessions, newest activity first, with exactly the documented keys and the recorded figures', async () => {
  const fake = makeFakeHome();
  try {
    const r = await run(fake, ['sessions', '--json', '--cwd', fake.ws]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    const expected = Object.values(fake.files).sort((a, b) => rawLastTimestamp(b) - rawLastTimestamp(a));
    assert.deepEqual(
      rows.map((row) => row.file),
      expected,
    );
    for (const row of rows) {
      assert.deepEqual(Object.keys(row), KEYS);
      const file = row.file as string;
      const name = Object.keys(fake.files).find((k) => fake.files[k] === file)!;
      const codex = CODEX_FIXTURES.includes(name);
      assert.equal(row.agent, codex ? 'codex' : 'claude-code');
      assert.equal(row.model, rawModel(file, codex));
      assert.equal(row.lastActivity, new Date(rawLastTimestamp(file)).toISOString());
      assert.equal(row.contextTokens, rawCallTokens(readFileSync(file, 'utf8'), codex).at(-1));
      assert.equal(row.contextWindow, codex ? 258_400 : 200_000);
      assert.equal(row.compactions, (await importSessionFile(file)).compactions.length);
      assert.equal(typeof row.title, 'string');
      assert.equal(row.writing, false);
    }
    // The default folder is the current one.
    const here = await run(fake, ['sessions', '--json'], {}, fake.ws);
    assert.equal(here.code, 0, here.stderr);
    assert.deepEqual(JSON.parse(here.stdout), rows);
  } finally {
    fake.remove();
  }
});

test("sessions: the readable table; CLAUDE_CONFIG_DIR and CODEX_HOME move the agents' folders", async () => {
  const fake = makeFakeHome();
  try {
    const r = await run(fake, ['sessions', '--cwd', fake.ws]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^Sessions of .*my\.project/);
    assert.match(lines[1], /^AGENT\s+LAST ACTIVITY\s+CONTEXT\s+COMPACTIONS\s+MODEL\s+TITLE$/);
    assert.match(r.stdout, /Codex .* 190,037 \/ 258,400 \(74%\) .* gpt-5\.5 .* we currently have beds/);
    assert.match(r.stdout, /Claude Code .* \/gsd:progress/);
    for (const file of Object.values(fake.files)) assert.ok(r.stdout.includes(`  ${file}`), file);
    const empty = join(fake.root, 'empty');
    mkdirSync(empty);
    const moved = await run(fake, ['sessions', '--json', '--cwd', fake.ws], { CLAUDE_CONFIG_DIR: empty, CODEX_HOME: empty });
    assert.deepEqual(JSON.parse(moved.stdout), []);
    const none = await run(fake, ['sessions', '--cwd', fake.ws], { CLAUDE_CONFIG_DIR: empty, CODEX_HOME: empty });
    assert.match(none.stdout, /^No Claude Code or Codex sessions for /);
  } finally {
    fake.remove();
  }
});

test('sessions: bad input is a line naming the folder or file, never a stack trace', async () => {
  const fake = makeFakeHome();
  try {
    const missing = join(fake.root, 'no-such-folder');
    const r = await run(fake, ['sessions', '--cwd', missing]);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(missing), r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.equal((await run(fake, ['sessions', 'FILE'])).code, 2);
    assert.equal((await run(fake, ['sessions', '--window', '3'])).code, 2);
    // A file in no known format in Claude Code's folder: listed with its problem.
    const odd = join(fake.claudeProject, 'odd.jsonl');
    writeFileSync(odd, 'not json at all\n');
    const listed = await run(fake, ['sessions', '--json', '--cwd', fake.ws]);
    assert.equal(listed.code, 0);
    const row = (JSON.parse(listed.stdout) as Array<Record<string, unknown>>).find((x) => x.file === odd);
    assert.match(String(row?.problem), /not a Claude Code session/);
  } finally {
    fake.remove();
  }
});
