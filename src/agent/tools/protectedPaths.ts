// Paths whose change is code execution in disguise. Writes under a `.git` folder are refused (git
// runs `core.fsmonitor`, `core.hooksPath` and hooks, and VS Code's git runs `git status` by itself);
// edits to files that tooling executes get an explicit warning on the approval card.

/** True for `.git` as a path segment, as case-insensitive file systems and Windows see it (`.GIT`, `.git.`, `GIT~1`). */
function isGitSegment(segment: string): boolean {
  const s = segment.toLowerCase().replace(/[. ]+$/, '');
  return s === '.git' || /^git~\d+$/.test(s);
}

/** Why a write to `rel` (relative to the workspace, '/' separators) is refused, or undefined. */
export function refusedWriteReason(rel: string): string | undefined {
  if (rel.split('/').some(isGitSegment)) {
    return `writing under .git is refused (${rel}): git runs code from its config and hooks (core.fsmonitor, core.hooksPath, hooks/*)`;
  }
  return undefined;
}

/**
 * The documented list of files that tooling runs or that change what routine commands run. Each
 * entry: a test on the workspace-relative path (lower-cased) and what executes it.
 */
export const EXECUTABLE_CONFIG: ReadonlyArray<{ test: (rel: string) => boolean; what: string }> = [
  {
    test: (r) => /^(.*\/)?\.vscode\/(settings|tasks|launch)\.json$/.test(r),
    what: 'VS Code reads it: tasks and launch configurations run commands, settings choose programs and environments',
  },
  { test: (r) => r.endsWith('.code-workspace'), what: 'VS Code reads its settings, tasks and launch configurations' },
  { test: (r) => /^(.*\/)?\.envrc$/.test(r), what: 'direnv runs it as a shell script on entering the folder' },
  {
    test: (r) => /^(.*\/)?\.(npmrc|yarnrc|yarnrc\.yml|pnpmfile\.cjs)$/.test(r),
    what: 'npm, yarn and pnpm read it (it can set the script shell, node options or a yarn binary to run)',
  },
  { test: (r) => /^(.*\/)?\.husky\//.test(r), what: 'husky runs it as a git hook' },
  { test: (r) => /^(.*\/)?\.pre-commit-config\.ya?ml$/.test(r), what: 'pre-commit runs the hooks it lists on every commit' },
  {
    test: (r) => /^(.*\/)?\.devcontainer\//.test(r),
    what: 'Dev Containers run its lifecycle commands when the folder is opened in a container',
  },
  { test: (r) => /^\.github\/workflows\//.test(r), what: 'GitHub Actions runs it on push, with the repository secrets' },
  { test: (r) => /^(.*\/)?(gnu)?makefile$/.test(r), what: 'make runs its recipes' },
];

/** package.json keys whose values tooling runs (npm lifecycle scripts, git-hook managers). */
const PACKAGE_RUN_KEYS = ['scripts', 'husky', 'simple-git-hooks', 'lint-staged', 'pre-commit', 'gitHooks'];

/**
 * An explicit warning for an approval of a change to `rel` from `original` (null: a new file) to
 * `updated`, when tooling executes that file; undefined otherwise.
 */
export function executableConfigWarning(rel: string, original: string | null, updated: string): string | undefined {
  const lower = rel.toLowerCase();
  const hit = EXECUTABLE_CONFIG.find((e) => e.test(lower));
  if (hit) return `${rel} is executable configuration: ${hit.what}. Approving this change can run code without a run_command approval.`;
  if (/^(.*\/)?package\.json$/.test(lower)) {
    const changed = changedRunKeys(original, updated);
    if (changed.length > 0)
      return `${rel}: this change touches ${changed.join(', ')}, which npm and git hooks run. Approving it can run code without a run_command approval.`;
  }
  return undefined;
}

function changedRunKeys(original: string | null, updated: string): string[] {
  const before = parseObject(original ?? '{}');
  const after = parseObject(updated);
  if (!before || !after) return ['scripts (the file is not valid JSON, so the scripts cannot be compared)'];
  return PACKAGE_RUN_KEYS.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
