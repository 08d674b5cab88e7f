// The extension's entry point (dist/extension.js, package.json `main`): activation in turns of the event
// loop. Requiring all of Splitpoint at once and activating it was one synchronous step of the extension
// host of about 60-80 ms (npm run bench, section 7: the host is never blocked over 50 ms). The bundle is
// split in three (esbuild.mjs): this shell, the engine (src/core, dist/core.js) and the VS Code glue
// (extension.ts and what it imports, dist/host.js); the shell requires the engine, then the glue, then
// activates, each in its own turn, and VS Code waits for the returned promise as for any activation
// (commands and views contributed by Splitpoint run once it resolves). Under tsx the same requires load
// the sources.
import type { ExtensionContext } from 'vscode';

type Host = typeof import('./extension');

let host: Host | undefined;

/** One turn of the event loop: what is waiting (input, other extensions, timers) runs before the next step. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The Node built-ins the engine and the glue require that Node has not loaded yet in a fresh process, the
 * costly ones first (node:assert and node:crypto take several ms each to compile); one per turn. A module
 * missing here is loaded with the bundle that needs it, as before: only the turns change.
 */
const BUILTINS = ['node:assert', 'node:crypto', 'node:worker_threads', 'node:child_process', 'node:fs/promises', 'node:stream', 'node:os'];

export async function activate(context: ExtensionContext): Promise<void> {
  for (const name of BUILTINS) {
    await turn();
    require(name);
  }
  await turn();
  // The engine (dist/core.js): the glue's requires of it then hit the module cache.
  require('../core');
  await turn();
  const loaded = require('./extension') as Host;
  await turn();
  loaded.activate(context);
  host = loaded;
}

export function deactivate(): void {
  host?.deactivate();
}
