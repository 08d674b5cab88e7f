// Entry point of the `splitpoint` binary (bundled to dist/cli.js). Session files are read by the core's
// readSessionFile: regular files only, up to MAX_SESSION_FILE_BYTES (never /dev/zero or a FIFO).
import { readSessionFile } from './core';
import { escapeControls } from './cli/terminal';
import { runCli } from './cli/main';

runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readFile: (p) => readSessionFile(p),
  ...(process.stderr.isTTY ? { progress: (t: string) => void process.stderr.write(t) } : {}),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(escapeControls(`splitpoint: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`));
    process.exitCode = 1;
  },
);
