// scripts/setup-test-env.sh (the first step of `npm test`): a user who cannot install packages gets
// one message naming what is missing and the command that installs it; SPLITPOINT_CHROMIUM is checked;
// on a machine that has everything it does nothing. `id`, `sudo`, `dpkg` and `apt-get` are stubbed on
// PATH, and code-server's cache points at an empty folder, so nothing is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'setup-test-env.sh');
const BUILD_PACKAGES = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev', 'ca-certificates'];

const tmp = mkdtempSync(join(tmpdir(), 'splitpoint-setup-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A folder of stub commands: a non-root user whose sudo wants a password, and no package installed. */
function stubs(name: string, extra: Record<string, string> = {}): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const scripts: Record<string, string> = {
    id: 'echo 1000',
    sudo: 'echo "sudo: a password is required" >&2; exit 1',
    dpkg: 'exit 1',
    // Logs what it was asked; "installs" nothing (the install step fails).
    'apt-get': `echo "apt-get $*" >> "${join(dir, 'apt.log')}"; [ "$1" = update ]`,
    ...extra,
  };
  for (const [cmd, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, cmd), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, cmd), 0o755);
  }
  return dir;
}

function run(env: Record<string, string>) {
  const base = { ...process.env };
  delete base.SPLITPOINT_CHROMIUM;
  const r = spawnSync('bash', [SCRIPT], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...base, ...env } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('scripts/setup-test-env.sh', () => {
  test('without root or a password-less sudo: one message naming every missing package and the command that installs them; nothing is run', () => {
    const bin = stubs('no-root');
    const r = run({
      PATH: `${bin}:${process.env.PATH}`,
      SPLITPOINT_E2E_CACHE: join(tmp, 'empty-cache'),
      SPLITPOINT_CHROMIUM: process.execPath,
    });
    assert.equal(r.status, 1, r.err);
    assert.match(
      r.err,
      /npm test needs Debian packages that are not installed: build-essential python3 pkg-config libkrb5-dev libxkbfile-dev libsecret-1-dev ca-certificates/,
    );
    assert.ok(r.err.includes(`sudo apt-get update && sudo apt-get install -y --no-install-recommends ${BUILD_PACKAGES.join(' ')}`), r.err);
    assert.doesNotMatch(r.err, /chromium/, 'SPLITPOINT_CHROMIUM names a browser: chromium is not asked for');
    assert.equal(r.out, '');
  });

  test('SPLITPOINT_CHROMIUM that is not an executable file fails with a message naming it', () => {
    const r = run({ SPLITPOINT_CHROMIUM: '/nonexistent/splitpoint-test/chrome' });
    assert.equal(r.status, 1);
    assert.match(r.err, /SPLITPOINT_CHROMIUM=\/nonexistent\/splitpoint-test\/chrome is not an executable file/);
  });

  test('as root, the missing packages are installed with apt-get (update, then install --no-install-recommends)', () => {
    const bin = stubs('root', { id: 'echo 0' });
    const r = run({
      PATH: `${bin}:${process.env.PATH}`,
      SPLITPOINT_E2E_CACHE: join(tmp, 'empty-cache'),
      SPLITPOINT_CHROMIUM: process.execPath,
    });
    assert.notEqual(r.status, 0, 'the stub apt-get fails, and so does the script');
    assert.match(r.out, /installing build-essential/);
    const apt = readFileSync(join(bin, 'apt.log'), 'utf8');
    assert.match(apt, /^apt-get update -q\napt-get install -y -q --no-install-recommends build-essential python3 /);
  });

  test('with everything present it prints one line and installs nothing', (t) => {
    if (spawnSync('bash', [join(ROOT, 'scripts', 'setup-code-server.sh'), '--check']).status !== 0) {
      t.skip('code-server is not installed on this machine (npm test installs it first)');
      return;
    }
    const bin = stubs('ready', { dpkg: 'exit 0' });
    const started = Date.now();
    const r = run({ PATH: `${bin}:${process.env.PATH}`, SPLITPOINT_CHROMIUM: process.execPath });
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out.trim().split('\n').length, 1, r.out);
    assert.match(r.out, /^setup-test-env: ready/);
    assert.ok(Date.now() - started < 5_000, 'fast');
  });
});
