// Runs every *.test.ts under test/ with node:test, TypeScript loaded through tsx.
// Node 20's --test does not expand globs, so the files are listed here.
//   node test/run.mjs [filter…]          unit, property, integration and webview tests
//   node test/run.mjs --e2e [filter…]    only the end-to-end tests in a real VS Code (test/e2e/)
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const E2E_DIR = 'e2e';

function collect(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      // fixtures: data; vscode: the @vscode/test-electron suite (npm run test:vscode); .scratch: local experiments.
      if (name === 'fixtures' || name === 'vscode' || name.startsWith('.')) continue;
      collect(path, out);
    } else if (name.endsWith('.test.ts')) {
      out.push(path);
    }
  }
  return out;
}

const args = process.argv.slice(2);
const e2e = args.includes('--e2e');
const filter = args.filter((a) => a !== '--e2e');
const isE2e = (f) => f.split(/[\\/]/)[1] === E2E_DIR;
const files = collect('test')
  .filter((f) => isE2e(f) === e2e)
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`test/run.mjs: no test files matched ${filter.join(' ')}`);
  process.exit(2);
}
// Screenshots and logs of an earlier end-to-end run would mix with this one's.
if (e2e && existsSync('test-artifacts')) {
  for (const f of readdirSync('test-artifacts'))
    if (f.startsWith('e2e-')) rmSync(join('test-artifacts', f), { recursive: true, force: true });
}
// The end-to-end files each start a code-server and a browser: one at a time.
const concurrency = e2e ? ['--test-concurrency=1'] : [];
// A hang fails, promptly and by name, instead of holding the run until CI kills it. Node 20 applies
// --test-timeout to each test file as a whole (the runner cancels the file and reports it by path;
// Node 22+ applies it to each test too), so it is a per-file budget: the slowest unit file, the
// invariants property test, takes about 50 s alone on a 2-core machine; the end-to-end files about
// 10 s and 25-35 s (each step of the long one also has its own 3-minute limit).
const timeout = `--test-timeout=${e2e ? 15 * 60_000 : 180_000}`;
// scripts/repo-only-reads.mjs makes any read beside the checkout (../shared/, a sibling folder) throw and
// fail the file: the tests read only the repository's own files, as in a fresh clone.
const guard = ['--import', './scripts/repo-only-reads.mjs'];
const result = spawnSync(
  process.execPath,
  [...guard, '--import', 'tsx', '--test', '--test-reporter=spec', timeout, ...concurrency, ...files],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
