// A fresh clone has nothing beside it: the tests, scripts and bench read only the repository's files.
// scripts/repo-only-reads.mjs (loaded by test/run.mjs and `npm run bench`) makes a read beside the
// checkout throw and fail the process; and no source of the tests, the bench or the scripts names a
// path beside the checkout (../shared/ and the like), which a clone does not have.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');
const GUARD = join(ROOT, 'scripts', 'repo-only-reads.mjs');

function runGuarded(code: string) {
  return spawnSync(process.execPath, ['--import', GUARD, '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
}

test('a read beside the repository throws, names the path and fails the process, even when the error is caught', () => {
  const r = runGuarded(
    "import { existsSync } from 'node:fs'; try { existsSync('../shared/real-sessions'); } catch {} console.log('after');",
  );
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /after/);
  assert.match(r.stderr, /read outside the repository: .*[\\/]shared[\\/]real-sessions \(existsSync\)/);
});

test('every kind of read is guarded: promises, streams, directory listings', () => {
  for (const call of [
    "import { readFile } from 'node:fs/promises'; await readFile('../elsewhere/x.jsonl');",
    "import { createReadStream } from 'node:fs'; createReadStream('../elsewhere/x.jsonl');",
    "import fs from 'node:fs'; fs.readdirSync(new URL('file://' + process.cwd() + '/../elsewhere'));",
  ]) {
    const r = runGuarded(call);
    assert.equal(r.status, 1, call);
    assert.match(r.stderr, /read outside the repository: .*elsewhere/, call);
  }
});

test('reads inside the repository, in the temporary folder and resolver probes of parent folders pass', () => {
  const r = runGuarded(
    "import fs from 'node:fs'; import os from 'node:os'; fs.readFileSync('test/fixtures/real-sessions/LICENSE-agentv'); " +
      "fs.readdirSync(os.tmpdir()); fs.existsSync('../node_modules'); fs.existsSync('../package.json'); console.log('ok');",
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'ok');
});

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(join(ROOT, rel)).isDirectory()) files(rel, out);
    else if (/\.(ts|tsx|mjs|js|sh|json)$/.test(name)) out.push(rel);
  }
  return out;
}

test('no test, bench or script source names a path beside the checkout', () => {
  // The project's shared folder beside the checkout (its real sessions, notes and design), by relative path or join();
  // webview/shared/ (a folder of the repository, imported as '../shared/…') is not it.
  const beside =
    /(\.\.\/(?:\.\.\/)*shared\/(?:real-sessions|notes|seeds|DESIGN)|['"`]\.\.['"`],\s*(?:['"`]\.\.['"`],\s*)*['"`]shared['"`]|\/work\/shared\b)/;
  const offenders = [...files('test'), ...files('bench'), ...files('scripts'), '.ci/run', 'package.json', 'esbuild.mjs']
    .filter((f) => f !== join('test', 'scripts', 'repoOnlyReads.test.ts'))
    .flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => beside.test(line) && !/^\s*(\/\/|#|\*)/.test(line)),
    )
    .map(({ at, line }) => `${at}: ${line.trim()}`);
  assert.deepEqual(offenders, []);
});
