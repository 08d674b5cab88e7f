// The @vscode/test-electron integration suite (test/vscode/suite) needs a downloaded VS Code desktop,
// which cannot run here; this runs the very same suite inside code-server's extension host instead.
// A tiny runner extension, installed next to Splitpoint, calls the suite's run() once the workbench
// has started and writes the report to a file this test reads.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
// @ts-expect-error: a plain .mjs script without type declarations
import { buildSuite } from '../vscode/runTest.mjs';
import { assertChromiumInstalled } from '../helpers/chromium';
import {
  buildExtension,
  ensureCodeServer,
  freshDirs,
  installUnpacked,
  QUIET_SETTINGS,
  ROOT,
  startCodeServer,
  writeUserSettings,
  type CodeServer,
  type RunDirs,
} from './codeServer';
import { launchBrowser, waitFor } from './workbench';

let dirs: RunDirs;
let server: CodeServer | undefined;
let browser: Browser | undefined;
let ok = false;

interface Report {
  ok: boolean;
  passed?: string[];
  failed?: Array<{ name: string; error: string }>;
  error?: string;
}

before(
  async () => {
    // What is missing is said first, before anything is built or started.
    assertChromiumInstalled();
    ensureCodeServer();
    buildExtension();
    dirs = freshDirs('splitpoint-exthost');
    installUnpacked(dirs.extensionsDir);
    const runner = join(dirs.extensionsDir, 'splitpoint-test.suite-runner-0.0.1');
    mkdirSync(runner);
    await buildSuite(join(runner, 'suite.js'));
    writeFileSync(
      join(runner, 'package.json'),
      JSON.stringify({
        name: 'suite-runner',
        publisher: 'splitpoint-test',
        version: '0.0.1',
        engines: { vscode: '^1.100.0' },
        main: './runner.js',
        activationEvents: ['onStartupFinished'],
      }),
    );
    const reportPath = join(dirs.base, 'report.json');
    writeFileSync(
      join(runner, 'runner.js'),
      `const { writeFileSync } = require('fs');
exports.activate = () => {
  require('./suite.js').run().then(
    (r) => writeFileSync(${JSON.stringify(reportPath)}, JSON.stringify({ ok: true, ...r })),
    (e) => writeFileSync(${JSON.stringify(reportPath)}, JSON.stringify({ ok: false, error: String(e && e.message || e) })),
  );
};
`,
    );
    writeUserSettings(dirs.userDataDir, QUIET_SETTINGS);
    server = await startCodeServer({ home: dirs.base, ...dirs });
    browser = await launchBrowser();
    // The extension host starts when a workbench connects.
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${server.url}/?folder=${encodeURIComponent(dirs.workspace)}`);
  },
  { timeout: 5 * 60_000 },
);

after(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
  if (!ok && server) {
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    writeFileSync(join(ROOT, 'test-artifacts', 'e2e-exthost-code-server.log'), server.output());
  }
  if (dirs) rmSync(dirs.base, { recursive: true, force: true });
});

test('the VS Code integration suite (test/vscode/suite) passes in a real extension host', { timeout: 120_000 }, async () => {
  const reportPath = join(dirs.base, 'report.json');
  const report = await waitFor(
    'the suite report',
    async () => existsSync(reportPath) && (JSON.parse(readFileSync(reportPath, 'utf8')) as Report),
    90_000,
  );
  assert.equal(report.ok, true, report.error);
  assert.deepEqual(report.failed, []);
  assert.ok((report.passed?.length ?? 0) >= 5, `passed: ${report.passed?.join('; ')}`);
  ok = true;
});
