// A machine without the browser gets one clear error naming the package and the command that
// installs it, and a webview test file whose setup fails ends promptly instead of hanging on what
// its harness had started (an esbuild build, an HTTP server, a browser).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { assertChromiumInstalled, CHROMIUM_INSTALL_COMMAND, ChromiumMissingError } from './chromium';
import { setUp } from './cleanup';
import { startStaticServer } from './staticServer';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');
const MISSING = '/nonexistent/splitpoint-test/chromium';
/** A file that exists and runs, but is no browser: the launch itself fails, after the harness started its server. */
const NOT_A_BROWSER = '/bin/false';
/** Far below the runner's per-file timeout: a file that needs longer has leaked something. */
const PROMPT_MS = 60_000;

describe('the Chromium launcher', () => {
  test('a missing default Chromium names the Debian package, the command that installs it and SPLITPOINT_CHROMIUM', () => {
    assert.throws(
      () => assertChromiumInstalled(MISSING, false),
      (e: unknown) => {
        assert.ok(e instanceof ChromiumMissingError);
        assert.match(e.message, new RegExp(`no executable at ${MISSING}`));
        assert.match(e.message, /Debian package 'chromium'/);
        assert.ok(e.message.includes(CHROMIUM_INSTALL_COMMAND), e.message);
        assert.match(e.message, /sudo apt-get install -y --no-install-recommends chromium/);
        assert.match(e.message, /SPLITPOINT_CHROMIUM/);
        return true;
      },
    );
  });

  test('a SPLITPOINT_CHROMIUM that points nowhere says so, naming the variable and the path', () => {
    assert.throws(
      () => assertChromiumInstalled(MISSING, true),
      /^ChromiumMissingError: SPLITPOINT_CHROMIUM=\/nonexistent\/splitpoint-test\/chromium is not an executable file/,
    );
    assert.throws(() => assertChromiumInstalled(ROOT, true), ChromiumMissingError, 'a folder is not a browser');
  });

  test('an executable file passes the check', () => {
    assert.doesNotThrow(() => assertChromiumInstalled(process.execPath, true));
  });
});

describe('a harness whose setup fails stops what it started', () => {
  test('setUp undoes every step registered before the failure, last first, and rethrows the failure', async () => {
    const undone: string[] = [];
    let origin = '';
    await assert.rejects(
      setUp(async (cleanup) => {
        cleanup.add('first', (v) => undone.push(v));
        const server = cleanup.add(await startStaticServer(() => ({ type: 'text/plain', body: 'ok' })), (s) => s.close());
        origin = server.origin;
        assert.equal(await (await fetch(`${origin}/`)).text(), 'ok');
        cleanup.add('second', (v) => undone.push(v));
        throw new Error('the browser did not start');
      }),
      /the browser did not start/,
    );
    assert.deepEqual(undone, ['second', 'first']);
    await assert.rejects(fetch(`${origin}/`), 'the server no longer listens');
  });
});

interface Run {
  status: number | null;
  output: string;
  ms: number;
}

/** Runs one test file the way test/run.mjs does, but with no runner timeout: only its own teardown can end it. */
function runTestFile(file: string, chromium: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, SPLITPOINT_CHROMIUM: chromium };
  delete env.NODE_TEST_CONTEXT; // we are inside the runner; the child must run as a top-level `node --test`
  const started = Date.now();
  // Its own process group: `node --test` runs the file in a child of its own, which a kill must reach too.
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), PROMPT_MS);
  return new Promise((done) =>
    child.once('close', (status) => {
      clearTimeout(killer);
      done({ status, output, ms: Date.now() - started });
    }),
  );
}

describe('webview test files without a browser fail promptly, with the reason', () => {
  for (const file of ['test/webview/chat-streaming.test.ts', 'test/webview/inspector-strategies.test.ts']) {
    test(
      `${file}, SPLITPOINT_CHROMIUM missing: exits within ${PROMPT_MS / 1000} s with the launcher's message`,
      { timeout: PROMPT_MS + 30_000 },
      async () => {
        const r = await runTestFile(join(ROOT, file), MISSING);
        assert.ok(r.ms < PROMPT_MS, `${file} ended in ${r.ms} ms (killed: it hung)\n${r.output.slice(-2000)}`);
        assert.notEqual(r.status, 0, 'the file fails');
        assert.ok(r.output.includes(`SPLITPOINT_CHROMIUM=${MISSING} is not an executable file`), r.output.slice(-2000));
        assert.ok(!r.output.includes('browserType.launch'), 'no Playwright launch error: the check comes first');
      },
    );

    const failedLaunch = `${file}, a browser that fails to launch: the harness stops its server and bundle and the file exits within ${PROMPT_MS / 1000} s`;
    test(failedLaunch, { timeout: PROMPT_MS + 30_000 }, async () => {
      const r = await runTestFile(join(ROOT, file), NOT_A_BROWSER);
      assert.ok(r.ms < PROMPT_MS, `${file} ended in ${r.ms} ms (killed: it hung)\n${r.output.slice(-2000)}`);
      assert.notEqual(r.status, 0, 'the file fails');
      assert.match(r.output, /browserType\.launch/, 'the launch error is reported');
    });
  }
});
