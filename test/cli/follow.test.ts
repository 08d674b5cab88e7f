// `splitpoint inspect FILE --follow` (the built CLI, a child process) while a writer appends a real
// recording's lines in recorded order, in pieces, some split mid-line: one line per new model call whose
// context tokens are the recorded usage of that call (computed here from the raw lines), then exit 0 when
// the file is deleted or on SIGINT; bad input exits 2 with a line naming the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtCli } from './builtCli';
import { FIXTURES, makeFakeHome, rawCallTokens, withCodexCwd } from '../core/live/fakeHome';

interface Child {
  proc: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves when `predicate` holds (checked on each output), rejects after `ms`. */
  until: (what: string, predicate: () => boolean, ms?: number) => Promise<void>;
  exit: Promise<number | null>;
}

async function follow(file: string, ...flags: string[]): Promise<Child> {
  const cli = await builtCli();
  const proc = spawn(process.execPath, [cli, 'inspect', file, '--follow', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    const parts = out.split('\n');
    out = parts.pop()!;
    lines.push(...parts);
    notify();
  });
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    notify();
  });
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => (notify(), resolve(code))));
  const until = (what: string, predicate: () => boolean, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stdout ${lines.length} lines; stderr: ${err}`)), ms);
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
        } else if (proc.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`exited ${proc.exitCode} waiting for ${what}: ${err}`));
        } else waiters.push(check);
      };
      check();
    });
  return { proc, lines, stderr: () => err, until, exit };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Appends `text` in pieces of roughly `lines` lines, every other piece cut in the middle of a line. */
async function writeInPieces(file: string, text: string, lines: number): Promise<number> {
  const all = text.split(/(?<=\n)/);
  let pieces = 0;
  for (let i = 0; i < all.length; i += lines) {
    let piece = all.slice(i, i + lines).join('');
    if (pieces % 2 === 1 && i + lines < all.length) {
      // Cut mid-line: the rest of the piece goes out with the next one.
      const next = all[i + lines];
      const cut = Math.floor(next.length / 2);
      piece += next.slice(0, cut);
      all[i + lines] = next.slice(cut);
    }
    appendFileSync(file, piece);
    pieces++;
    await pause(40 + (pieces % 3) * 60);
  }
  return pieces;
}

for (const [name, codex, start] of [
  ['codex-agentv-a.jsonl', true, 200],
  ['claude-code-cipher-box-c.jsonl', false, 300],
] as const) {
  test(`inspect --follow --json on ${name} being written: one line per new call with its recorded context`, async () => {
    const fake = makeFakeHome();
    try {
      let text = readFileSync(join(FIXTURES, name), 'utf8');
      if (codex) text = withCodexCwd(text, fake.ws);
      if (!text.endsWith('\n')) text += '\n';
      const lines = text.split(/(?<=\n)/);
      const head = lines.slice(0, start).join('');
      const file = join(fake.root, name);
      writeFileSync(file, head);
      const child = await follow(file, '--json');
      await child.until('following', () => child.stderr().includes('following'));
      const pieces = await writeInPieces(file, lines.slice(start).join(''), 37);
      const all = rawCallTokens(text, codex);
      const expected = all.slice(rawCallTokens(head, codex).length);
      assert.ok(expected.length > 50 && pieces > 10);
      await child.until(`${expected.length} calls`, () => child.lines.length >= expected.length);
      const calls = child.lines.map((l) => JSON.parse(l) as Record<string, number | string | null>);
      assert.deepEqual(
        calls.map((c) => c.contextTokens),
        expected,
        'each new call: the recorded usage of that call, in order, once',
      );
      const window = codex ? 258_400 : 200_000;
      calls.forEach((c, i) => {
        for (const key of ['contextTokens', 'contextWindow', 'percent', 'callsToCompaction', 'costSoFar']) assert.ok(key in c, key);
        assert.equal(c.call, all.length - expected.length + i + 1);
        assert.equal(c.agent, codex ? 'codex' : 'claude-code');
        assert.equal(c.contextWindow, window);
        assert.equal(c.percent, Math.round(((c.contextTokens as number) / window) * 1000) / 10);
        assert.ok(c.callsToCompaction === null || typeof c.callsToCompaction === 'number');
        if (i > 0) assert.ok((c.costSoFar as number) > (calls[i - 1].costSoFar as number));
      });
      unlinkSync(file);
      assert.equal(await child.exit, 0);
      assert.match(child.stderr(), /the file was deleted; stopped following/);
      assert.equal(child.lines.length, expected.length);
    } finally {
      fake.remove();
    }
  });
}

test('inspect --follow: the readable lines, a compaction recorded while following, SIGINT ends it with exit 0', async () => {
  const fake = makeFakeHome();
  try {
    // The recording's compact_boundary is its line 761.
    const text = readFileSync(join(FIXTURES, 'claude-code-cipher-box-a.jsonl'), 'utf8').split(/(?<=\n)/);
    const file = join(fake.root, 'a.jsonl');
    writeFileSync(file, text.slice(0, 700).join(''));
    const child = await follow(file);
    await child.until('following', () => child.stderr().includes('following'));
    assert.match(
      child.lines[0],
      /a\.jsonl: Claude Code \(claude-opus-4-6\), \d+ call\(s\), 0 compaction\(s\), context [\d,]+ \/ 200,000, cost so far \$/,
    );
    appendFileSync(file, text.slice(700, 800).join(''));
    await child.until('the compaction line', () => child.lines.some((l) => l.startsWith('compaction 1 recorded')));
    assert.match(
      child.lines.find((l) => l.startsWith('call '))!,
      /^call \d+: [\d,]+ \/ 200,000 tokens \([\d.]+%\), .*cost so far \$[\d.]+/,
    );
    assert.match(
      child.lines.find((l) => l.startsWith('compaction '))!,
      /^compaction 1 recorded \(auto, 167,389 tokens before; \d+ messages archived\)$/,
    );
    child.proc.kill('SIGINT');
    assert.equal(await child.exit, 0);
  } finally {
    fake.remove();
  }
});

test('inspect --follow on a session that has just started (an empty file): every call gets its line', async () => {
  const fake = makeFakeHome();
  try {
    const text = readFileSync(join(FIXTURES, 'claude-code-cipher-box-b.jsonl'), 'utf8').split(/(?<=\n)/);
    const file = join(fake.root, 'b.jsonl');
    writeFileSync(file, '');
    const child = await follow(file, '--json');
    await child.until('following', () => child.stderr().includes('following'));
    const written = text.slice(0, 120).join('');
    await writeInPieces(file, written, 23);
    const expected = rawCallTokens(written, false);
    assert.ok(expected.length > 5);
    await child.until(`${expected.length} calls`, () => child.lines.length >= expected.length);
    assert.deepEqual(
      child.lines.map((l) => (JSON.parse(l) as { contextTokens: number }).contextTokens),
      expected,
    );
    child.proc.kill('SIGTERM');
    assert.equal(await child.exit, 0);
  } finally {
    fake.remove();
  }
});

test('inspect --follow: a missing file or one in no known format is a line naming it, exit 2, no stack trace', async () => {
  const fake = makeFakeHome();
  try {
    const missing = join(fake.root, 'missing.jsonl');
    const a = await follow(missing, '--json');
    assert.equal(await a.exit, 2);
    assert.ok(a.stderr().includes(missing) && /file not found/.test(a.stderr()), a.stderr());
    assert.doesNotMatch(a.stderr(), /\n\s+at /);
    const odd = join(fake.root, 'odd.jsonl');
    writeFileSync(odd, '{"hello":"world"}\n'.repeat(60));
    const b = await follow(odd);
    assert.equal(await b.exit, 2);
    assert.ok(b.stderr().includes(odd) && /unrecognised session format/.test(b.stderr()), b.stderr());
    assert.doesNotMatch(b.stderr(), /\n\s+at /);
  } finally {
    fake.remove();
  }
});
