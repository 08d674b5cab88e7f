// Activation loads neither SDK nor the tokenizer's ranks: the bundle the extension ships (dist/, built
// here if missing) is required and activated in a fresh process with a vscode stub (the bench's
// activation child), and the files kept for first use (dist/vendor/*.js, dist/tokenizer/*.js) are not
// in the module cache two seconds later. Then the SDKs do load from dist/vendor, as the first request would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(import.meta.dirname ?? __dirname, '..', '..');
const BUNDLE = join(REPO, 'dist', 'extension.js');

function ensureBuilt(): void {
  if (!existsSync(join(REPO, 'dist', 'host.js')) || !existsSync(join(REPO, 'dist', 'vendor', 'anthropic-sdk.js'))) {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
  }
}

test('activating the bundle loads no SDK and no ranks; the SDKs load from dist/vendor on first use', () => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'sp-activation-'));
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(REPO, 'bench', 'children', 'activation.ts'), BUNDLE, join(dir, 'ws'), join(dir, 'storage')],
    { cwd: REPO, env: { ...process.env, SPLITPOINT_REPO: REPO }, encoding: 'utf8', timeout: 60_000 },
  );
  const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { error?: string; subscriptions: number; lazyLoaded: string[] };
  assert.equal(r.error, undefined, 'activation succeeded');
  assert.ok(r.subscriptions > 5, `${r.subscriptions} subscriptions: the extension activated`);
  assert.deepEqual(r.lazyLoaded, []);
  // Nor is either SDK bundled into what activation loads (a moved sdks.ts once left the MCP SDK, zod and ajv in it).
  for (const file of ['extension.js', 'core.js', 'host.js']) {
    const code = readFileSync(join(REPO, 'dist', file), 'utf8');
    for (const mark of ['StreamableHTTPClientTransport = class', 'class APIPromise'])
      assert.ok(!code.includes(mark), `dist/${file} has no ${mark}`);
  }

  const req = createRequire(BUNDLE);
  const anthropic = req('./vendor/anthropic-sdk.js') as { default: { APIError: unknown } };
  assert.equal(typeof anthropic.default, 'function', 'the Anthropic client class');
  assert.equal(typeof anthropic.default.APIError, 'function');
  const mcp = req('./vendor/mcp-sdk.js') as Record<string, unknown>;
  assert.deepEqual(Object.keys(mcp).sort(), [
    'Client',
    'McpError',
    'StdioClientTransport',
    'StreamableHTTPClientTransport',
    'ToolListChangedNotificationSchema',
  ]);
});
