// The workspace's files for the @-mention picker: `rg --files` (ripgrep honours .gitignore, .ignore
// and hidden files the way the search tool does; .gitignore outside a git repository too), sorted, at most `cap` paths. Killed after a
// timeout; a missing or failing rg rejects (the caller falls back to VS Code's findFiles).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const MAX_LISTED_FILES = 10_000;

export interface FileListing {
  files: string[];
  /** More files exist than `cap`. */
  truncated: boolean;
}

export function listWorkspaceFiles(rgPath: string, root: string, cap = MAX_LISTED_FILES, timeoutMs = 10_000): Promise<FileListing> {
  if (!existsSync(rgPath)) return Promise.reject(new Error(`ripgrep (rg) was not found at ${rgPath}`));
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.RIPGREP_CONFIG_PATH;
    const child = spawn(rgPath, ['--files', '--no-config', '--no-messages', '--no-require-git', '--glob', '!.git/'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
    });
    const files: string[] = [];
    let truncated = false;
    let rest = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!line) continue;
        if (files.length >= cap) {
          truncated = true;
          child.kill('SIGKILL');
          return;
        }
        files.push(line.replace(/\\/g, '/').replace(/^\.\//, ''));
      }
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (rest && files.length < cap) files.push(rest.replace(/\\/g, '/').replace(/^\.\//, ''));
      // rg exits 1 when there are no files, 2 on partial errors (unreadable folders): the list stands.
      if (signal && !truncated) reject(new Error(`rg --files did not finish in ${timeoutMs} ms`));
      else if (code !== null && code > 2) reject(new Error(`rg --files failed (exit ${code})`));
      else resolve({ files: files.sort(), truncated });
    });
  });
}
