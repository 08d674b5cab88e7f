// A real VS Code for the end-to-end tests: code-server (VS Code 1.100 workbench + Node extension
// host) from .e2e-cache/, installed by scripts/setup-code-server.sh. Everything it writes lives in
// one temp folder (user data, extensions, workspace, config), so every run starts fresh.
// See docs/testing.md (End-to-end in a real VS Code) for why each step is here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');
export const CACHE = process.env.SPLITPOINT_E2E_CACHE ?? join(ROOT, '.e2e-cache');
export const CODE_SERVER_BIN = join(CACHE, 'code-server', 'node_modules', '.bin', 'code-server');

/**
 * Throws a clear error unless code-server is installed. Installing is scripts/setup-test-env.sh's job
 * (`npm test` and `npm run test:e2e` run it first), not a test hook's: a 2-3 minute install under a
 * test timeout would fail for the wrong reason.
 */
export function ensureCodeServer(): void {
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'setup-code-server.sh'), '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0 || !existsSync(CODE_SERVER_BIN)) {
    throw new Error(
      `code-server is not installed in ${CACHE}: run \`bash scripts/setup-test-env.sh\` (npm test and npm run test:e2e run it first).`,
    );
  }
}

/** Bundles the extension (node esbuild.mjs). */
export function buildExtension(): void {
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`node esbuild.mjs failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
}

export interface RunDirs {
  /** The temp folder holding everything below (also code-server's HOME). */
  base: string;
  userDataDir: string;
  extensionsDir: string;
  workspace: string;
}

/** Fresh, empty folders for one code-server run. */
export function freshDirs(prefix: string): RunDirs {
  const base = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const dirs = { base, userDataDir: join(base, 'user-data'), extensionsDir: join(base, 'extensions'), workspace: join(base, 'workspace') };
  for (const d of [dirs.userDataDir, dirs.extensionsDir, dirs.workspace]) mkdirSync(d, { recursive: true });
  return dirs;
}

/** Settings that keep VS Code quiet: no welcome page, telemetry, update or recommendation prompts. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/** The unpacked extension as VS Code expects it: `<extensionsDir>/<publisher>.<name>-<version>/`. */
export function installUnpacked(extensionsDir: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const dir = join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']) cpSync(join(ROOT, f), join(dir, f));
  for (const d of ['dist', 'media']) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  return dir;
}

/** Writes `User/settings.json` under the user-data-dir. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const dir = join(userDataDir, 'User');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}

/**
 * Writes `Machine/settings.json` under the user-data-dir: the remote settings of code-server's window
 * (VS Code's "Remote" tab). code-server's window is a remote window, where VS Code does not apply a
 * `machine`-scoped setting (splitpoint.baseUrl, splitpoint.transcriptFolder) from the local user
 * settings: it belongs here. (Put in `User/settings.json`, such a setting was applied only while the
 * extension's schema was not yet registered when the settings were read: in about 1 of 10 window
 * loads it was missing, and requests went to the default URL.)
 */
export function writeMachineSettings(userDataDir: string, settings: Record<string, unknown>): void {
  const dir = join(userDataDir, 'Machine');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

export interface CodeServer {
  url: string;
  /** Everything code-server printed (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export interface CodeServerOptions extends Omit<RunDirs, 'base'> {
  /** HOME of the server (its config file goes here too). */
  home: string;
  /** Ready within this many ms (default 60 s). */
  timeoutMs?: number;
}

/** Starts code-server on a free port and resolves once it answers HTTP. */
export async function startCodeServer(o: CodeServerOptions): Promise<CodeServer> {
  const port = await freePort();
  const config = join(o.home, 'code-server.yaml');
  writeFileSync(config, 'auth: none\n');
  const args = [
    '--config',
    config,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    o.userDataDir,
    '--extensions-dir',
    o.extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    o.workspace,
  ];
  const env = { ...process.env, HOME: o.home, XDG_CONFIG_HOME: join(o.home, '.config'), XDG_DATA_HOME: join(o.home, '.local', 'share') };
  // Own process group, so stop() can end code-server and its extension host together.
  const proc: ChildProcess = spawn(CODE_SERVER_BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    try {
      process.kill(-proc.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
    if (!killed) {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await exited;
    }
  };
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`code-server exited with ${proc.exitCode} before it was ready:\n${out}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${url} within ${o.timeoutMs ?? 60_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, output: () => out, stop };
}
