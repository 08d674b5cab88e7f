// The `splitpoint` binary as users get it: src/cli.ts bundled by esbuild (tokenizer ranks in their own
// lazily required files, as esbuild.mjs lays out dist/), built once per test process into a temporary
// directory (never dist/, which other builds write), and run as a child process.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

/** Module -> file name under tokenizer/, as in esbuild.mjs. */
const LAZY_MODULES: Record<string, string> = {
  'gpt-tokenizer/encoding/o200k_base': 'gpt-tokenizer-o200k',
  'js-tiktoken/lite': 'js-tiktoken-lite',
  'js-tiktoken/ranks/o200k_base': 'js-tiktoken-o200k-ranks',
};

/** jsonc-parser's `main` is a UMD build esbuild cannot follow: its ESM build, as in esbuild.mjs. */
const JSONC = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

let built: Promise<string> | undefined;
let dir: string | undefined;

/** Path of the bundled CLI (built on first call). */
export function builtCli(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'splitpoint-cli-'));
  dir = outDir;
  // Removed when the test process exits (a node:test `after` registered inside a test would run after that test).
  process.on('exit', () => rmSync(outDir, { recursive: true, force: true }));
  const out = join(outDir, 'cli.js');
  const lazy: esbuild.Plugin = {
    name: 'lazy-tokenizer',
    setup(b) {
      b.onResolve({ filter: /^(gpt-tokenizer\/encoding\/o200k_base|js-tiktoken\/lite|js-tiktoken\/ranks\/o200k_base)$/ }, (args) => ({
        path: `./tokenizer/${LAZY_MODULES[args.path]}.js`,
        external: true,
      }));
    },
  };
  const node = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' } as const;
  await Promise.all([
    esbuild.build({ ...node, entryPoints: ['src/cli.ts'], outfile: out, plugins: [lazy], alias: JSONC }),
    // `tune` runs its replays on this worker, found beside cli.js.
    esbuild.build({ ...node, entryPoints: ['src/cli/tuneWorker.ts'], outfile: join(outDir, 'tuneWorker.js'), plugins: [lazy] }),
    ...Object.entries(LAZY_MODULES).map(([module, name]) =>
      esbuild.build({
        ...node,
        stdin: { contents: `module.exports = require(${JSON.stringify(module)});`, resolveDir: '.', loader: 'js' },
        outfile: join(outDir, 'tokenizer', `${name}.js`),
      }),
    ),
  ]);
  return out;
}

/** A scratch directory for files a test writes (removed with the build). */
export async function scratchDir(): Promise<string> {
  await builtCli();
  return dir!;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI with `args`; never rejects on a non-zero exit. */
export async function runBuilt(...args: string[]): Promise<CliRun> {
  const cli = await builtCli();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Run and parse stdout as JSON, failing with stderr when the exit code is not 0. */
export async function runJson<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const r = await runBuilt(...args);
  if (r.code !== 0) throw new Error(`splitpoint ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
