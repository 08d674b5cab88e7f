// Loaded with `node --import` by the test runner (test/run.mjs) and the bench: any file-system read of
// a path beside the repository (a sibling folder of the checkout, such as ../shared/) throws and fails
// the process. A person who clones the project has nothing beside it, so the tests and the bench must
// read only the repository's own files (real recorded sessions: test/fixtures/real-sessions/).
// Ancestor probes by resolvers (a parent folder's node_modules, package.json, tsconfig.json) are not
// reads of data and are let through.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PARENT = dirname(REPO);
const PROBES = new Set(['node_modules', 'package.json', 'tsconfig.json', 'jsconfig.json', '.git']);
const violations = [];

function toPath(arg) {
  if (typeof arg === 'string') return arg;
  if (arg instanceof URL) return arg.protocol === 'file:' ? fileURLToPath(arg) : undefined;
  if (Buffer.isBuffer(arg)) return arg.toString();
  return undefined;
}

/** The path a call would read when it lies beside the repository (inside its parent, outside the repo). */
export function besideRepository(arg) {
  const raw = toPath(arg);
  if (raw === undefined) return undefined;
  const path = resolve(raw);
  if (path === REPO || path.startsWith(REPO + sep)) return undefined;
  if (!path.startsWith(PARENT + sep)) return undefined;
  const first = path.slice(PARENT.length + 1).split(sep)[0];
  return PROBES.has(first) ? undefined : path;
}

function guard(owner, name) {
  const original = owner[name];
  if (typeof original !== 'function') return;
  owner[name] = function (arg, ...rest) {
    const outside = besideRepository(arg);
    if (outside !== undefined) {
      const message =
        `read outside the repository: ${outside} (${name}); ` +
        'tests, scripts and the bench read only files inside the repository (copy data into test/fixtures/)';
      violations.push(message);
      throw new Error(message);
    }
    return original.call(this, arg, ...rest);
  };
}

const READS = ['readFile', 'readdir', 'stat', 'lstat', 'open', 'access', 'opendir', 'realpath'];
for (const name of [...READS, ...READS.map((n) => `${n}Sync`), 'existsSync', 'exists', 'createReadStream', 'watch', 'watchFile'])
  guard(fs, name);
for (const name of READS) guard(fs.promises, name);
syncBuiltinESMExports();

process.on('exit', () => {
  if (violations.length === 0) return;
  process.stderr.write(
    `\n${violations.length} read(s) outside the repository:\n${[...new Set(violations)].map((v) => `  ${v}`).join('\n')}\n`,
  );
  process.exitCode = 1;
});
