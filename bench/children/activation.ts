// Activation of an extension bundle in a fresh process, outside VS Code: `require` the bundle with
// `vscode` resolved to a stub (Module._resolveFilename hook), call activate() with a fake
// ExtensionContext (awaiting the promise it returns, as VS Code does), then watch the event loop for two
// seconds (work deferred off the activation path, such as loading the tokenizer's ranks in a setTimeout,
// still runs on the same thread). A 1 ms timer chain runs from before the require to the end: the longest
// gap between its ticks is the longest block of the thread, during activation (require + activate, in
// one step or in several turns) and in the two seconds after it.
//
//   node --expose-gc activation.js <bundle.js> <workspace dir> <storage dir>
// Prints one JSON line. Imports nothing but Node built-ins and the stub, so the bundle under test
// pays for its own module loading.
import Module, { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createExtensionContext, createVscodeStub } from './vscodeStub';
import { timerChain } from './timerChain';

const STUB_ID = join(process.env.TMPDIR ?? '/tmp', '__splitpoint_bench_vscode_stub__.js');

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

async function main(): Promise<void> {
  const [bundle, workspace, storage] = process.argv.slice(2);
  const repo = process.env.SPLITPOINT_REPO ?? process.cwd();
  mkdirSync(workspace, { recursive: true });
  mkdirSync(storage, { recursive: true });
  const stub = createVscodeStub(repo, workspace);
  const M = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
    _cache: Record<string, unknown>;
  };
  const resolve = M._resolveFilename;
  M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? STUB_ID : resolve.call(this, request, ...rest);
  };
  M._cache[STUB_ID] = { id: STUB_ID, filename: STUB_ID, loaded: true, exports: stub, children: [], paths: [] };
  const context = createExtensionContext(repo, storage);
  const req = createRequire(join(repo, 'package.json'));

  gc();
  const heapStart = process.memoryUsage().heapUsed;
  const gaps = timerChain();
  const t0 = performance.now();
  let ext: { activate?: (c: unknown) => unknown; deactivate?: () => unknown };
  let requireMs = NaN;
  let activateMs = NaN;
  let error: string | undefined;
  try {
    ext = req(bundle) as typeof ext;
    requireMs = performance.now() - t0;
    const t1 = performance.now();
    const r = ext.activate?.(context);
    if (r && typeof (r as Promise<unknown>).then === 'function') await r;
    activateMs = performance.now() - t1;
  } catch (e) {
    error = (e as Error).stack?.split('\n').slice(0, 3).join(' ') ?? String(e);
    ext = {};
  }
  // The longest block from the require to the end of activate() (its promise resolved).
  const activationBlockMs = gaps.take();
  gc();
  const heapAfterActivate = process.memoryUsage().heapUsed;
  gaps.take();
  // Two seconds of the host's life after activation: what deferred work blocks the thread? A timer the
  // extension scheduled during activation (a deferred rank load) runs in one of the chain's gaps.
  await new Promise((r) => setTimeout(r, 2_000));
  const longestBlockMs = gaps.take();
  gaps.stop();
  gc();
  const heapAfter2s = process.memoryUsage().heapUsed;
  // The files loaded on first use only (the SDKs, the tokenizer's ranks): none may be loaded by now.
  const lazyLoaded = Object.keys(M._cache).filter((f) => /[\\/]dist[\\/](vendor|tokenizer)[\\/]/.test(f));
  try {
    await ext.deactivate?.();
    for (const d of context.subscriptions as Array<{ dispose(): unknown }>) d.dispose();
  } catch {
    // Disposal errors are not what this measures.
  }
  process.stdout.write(
    `${JSON.stringify({
      requireMs,
      activateMs,
      totalMs: requireMs + activateMs,
      heapActivateBytes: heapAfterActivate - heapStart,
      heapAfter2sBytes: heapAfter2s - heapStart,
      activationBlockMs,
      maxEventLoopDelayAfterMs: longestBlockMs,
      subscriptions: (context.subscriptions as unknown[]).length,
      lazyLoaded,
      error,
    })}\n`,
  );
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
