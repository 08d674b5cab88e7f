// Workspace tools against a real temp folder: path confinement with hostile paths, reads, listings,
// search, edits and writes behind approval (with diffs), commands (capture, cap, timeout, cancel,
// process-tree kill), read-only mode, and the line diff.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffLines, splitLines, unifiedDiff } from '../../src/agent/service/diff';
import {
  CANCELLED_BY_USER,
  READ_ONLY_TOOLS,
  WorkspaceTools,
  resolveWorkspacePath,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolCallContext,
  type ToolResult,
} from '../../src/agent/tools';

let base: string;
let ws: string;
let outside: string;

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-tools-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
  mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
  mkdirSync(join(ws, '.git'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\nexport function add(x: number, y: number) {\n  return x + y;\n}\n');
  writeFileSync(join(ws, 'src', 'b.ts'), "import { add } from './a';\n// NEEDLE here\nconsole.log(add(1, 2));\n");
  writeFileSync(join(ws, 'src', 'deep', 'c.ts'), 'const needle = "deep";\n');
  writeFileSync(join(ws, 'README.md'), '# Project\nSee src/.\n');
  writeFileSync(join(ws, 'logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]));
  writeFileSync(join(ws, 'node_modules', 'pkg', 'index.js'), 'needle in node_modules\n');
  writeFileSync(join(ws, '.git', 'config'), 'needle in git\n');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
  symlinkSync('/etc', join(ws, 'etc-link'));
  symlinkSync(outside, join(ws, 'outside-dir'));
  symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'a-link.ts'));
  symlinkSync(join(base, 'missing-target'), join(ws, 'dangling'));
});

after(() => {
  rmSync(base, { recursive: true, force: true });
});

interface Harness {
  ctx: ToolCallContext;
  requests: ApprovalRequest[];
  controller: AbortController;
  compactions: Array<string | undefined>;
  output: string[];
}

function harness(decide: (req: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision> = () => ({ approved: true })): Harness {
  const requests: ApprovalRequest[] = [];
  const compactions: Array<string | undefined> = [];
  const output: string[] = [];
  const controller = new AbortController();
  const ctx: ToolCallContext = {
    toolUseId: 'toolu_test',
    signal: controller.signal,
    requestApproval: async (req) => {
      const full = { ...req, toolUseId: 'toolu_test' };
      requests.push(full);
      return decide(full);
    },
    requestCompaction: (focus) => compactions.push(focus),
    onOutput: (chunk) => output.push(chunk),
  };
  return { ctx, requests, controller, compactions, output };
}

const tools = () => new WorkspaceTools({ root: ws, limits: { killGraceMs: 200 } });
const exec = (name: string, input: unknown, h: Harness = harness(), t = tools()): Promise<ToolResult> =>
  t.execute({ id: 'toolu_test', name, input }, h.ctx);

describe('path confinement', () => {
  const hostile: Array<[string, string]> = [
    ['../x', 'a parent-relative path'],
    ['/etc/passwd', 'an absolute path outside'],
    ['sub/../../x', 'a path that climbs out through ..'],
    ['etc-link/passwd', 'a symlink to /etc inside the workspace'],
    ['outside-dir/secret.txt', 'a symlinked folder pointing outside'],
    ['..\\x', 'a Windows-style ..\\ escape'],
    ['src\\..\\..\\x', 'a Windows-style escape through a real folder'],
  ];
  for (const [path, what] of hostile) {
    test(`read_file refuses ${what} (${JSON.stringify(path)}) with a clear error`, async () => {
      const r = await exec('read_file', { path });
      assert.equal(r.isError, true);
      assert.match(r.content, /path escapes the workspace: /);
      assert.ok(r.content.includes(path), r.content);
    });
  }

  test('write_file to a hostile path is refused before any approval and writes nothing', async () => {
    for (const path of ['../x.txt', 'outside-dir/new.txt', 'etc-link/new.conf', '..\\y.txt', join(base, 'abs.txt')]) {
      const h = harness();
      const r = await exec('write_file', { path, content: 'pwned' }, h);
      assert.equal(r.isError, true, path);
      assert.match(r.content, /path escapes the workspace/);
      assert.equal(h.requests.length, 0, 'no approval was asked for a refused path');
    }
    assert.equal(existsSync(join(base, 'x.txt')), false);
    assert.equal(existsSync(join(outside, 'new.txt')), false);
    assert.equal(existsSync(join(base, 'y.txt')), false);
    assert.equal(existsSync(join(base, 'abs.txt')), false);
  });

  test('edit_file, list_files, search and run_command cwd are confined too', async () => {
    const edit = await exec('edit_file', { path: 'outside-dir/secret.txt', old_string: 'TOP', new_string: 'NOT' });
    assert.match(edit.content, /path escapes the workspace/);
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
    assert.match((await exec('list_files', { path: '..' })).content, /path escapes the workspace/);
    assert.match((await exec('list_files', { path: 'outside-dir' })).content, /path escapes the workspace/);
    assert.match((await exec('search', { query: 'SECRET', path: 'outside-dir' })).content, /path escapes the workspace/);
    const h = harness();
    assert.match((await exec('run_command', { command: 'pwd', cwd: '../' }, h)).content, /path escapes the workspace/);
    assert.equal(h.requests.length, 0);
  });

  test('a NUL byte in a path is refused', async () => {
    const r = await exec('read_file', { path: 'foo\0bar' });
    assert.equal(r.isError, true);
    assert.match(r.content, /NUL byte/);
  });

  test('a dangling symlink is refused (its target cannot be checked)', async () => {
    const r = await exec('write_file', { path: 'dangling', content: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /symbolic link whose target does not exist/);
    assert.equal(existsSync(join(base, 'missing-target')), false);
  });

  test('allowed: an absolute path inside the workspace, .. that stays inside, and a symlink to a file inside', async () => {
    const abs = await exec('read_file', { path: join(ws, 'src', 'a.ts') });
    assert.equal(abs.isError, false, abs.content);
    assert.match(abs.content, /export const a = 1;/);
    const dots = await exec('read_file', { path: 'src/deep/../a.ts' });
    assert.equal(dots.isError, false, dots.content);
    const link = await exec('read_file', { path: 'a-link.ts' });
    assert.equal(link.isError, false, link.content);
    assert.match(link.content, /return x \+ y;/);
    const backslash = await exec('read_file', { path: 'src\\a.ts' });
    assert.equal(backslash.isError, false, 'backslashes are separators');
  });

  test('a workspace root reached through a symlink accepts paths under either spelling', () => {
    const linkRoot = join(base, 'ws-link');
    symlinkSync(ws, linkRoot);
    assert.equal(resolveWorkspacePath(linkRoot, join(linkRoot, 'src/a.ts')).rel, 'src/a.ts');
    assert.equal(resolveWorkspacePath(linkRoot, join(ws, 'src/a.ts')).rel, 'src/a.ts');
    assert.equal(resolveWorkspacePath(linkRoot, 'new/file.ts').exists, false);
    assert.throws(() => resolveWorkspacePath(linkRoot, join(linkRoot, '..', 'outside', 'secret.txt')), /path escapes the workspace/);
  });
});

describe('read_file', () => {
  test('numbers lines and reads inclusive 1-based ranges', async () => {
    const all = await exec('read_file', { path: 'src/a.ts' });
    assert.equal(all.content, '1\texport const a = 1;\n2\texport function add(x: number, y: number) {\n3\t  return x + y;\n4\t}');
    const part = await exec('read_file', { path: 'src/a.ts', start_line: 2, end_line: 3 });
    assert.equal(part.content, '2\texport function add(x: number, y: number) {\n3\t  return x + y;\n[Lines 2-3 of 4.]');
  });

  test('refuses binary files, folders, missing files and bad ranges with clear errors', async () => {
    assert.match((await exec('read_file', { path: 'logo.bin' })).content, /looks like a binary file/);
    assert.match((await exec('read_file', { path: 'src' })).content, /is a folder; use list_files/);
    assert.match((await exec('read_file', { path: 'nope.ts' })).content, /no such file: nope.ts/);
    assert.match((await exec('read_file', { path: 'src/a.ts', start_line: 9 })).content, /past the end of src\/a.ts \(4 lines\)/);
    assert.match(
      (await exec('read_file', { path: 'src/a.ts', start_line: 3, end_line: 2 })).content,
      /end_line \(2\) is before start_line \(3\)/,
    );
    assert.match((await exec('read_file', { path: 'src/a.ts', start_line: 0 })).content, /start_line must be at least 1/);
    assert.match((await exec('read_file', {})).content, /path must be a string/);
  });

  test('caps output size with a note saying how to read on', async () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${'x'.repeat(60)}`).join('\n');
    writeFileSync(join(ws, 'big.txt'), big);
    const t = new WorkspaceTools({ root: ws, limits: { maxReadOutputBytes: 10_000 } });
    const r = await exec('read_file', { path: 'big.txt' }, harness(), t);
    assert.equal(r.isError, false);
    assert.ok(Buffer.byteLength(r.content) < 10_300, `${Buffer.byteLength(r.content)} bytes`);
    assert.match(r.content, /\[Output truncated at 9\.8 KB: showing lines 1-\d+ of 5000\. Read more with start_line: \d+\.\]$/);
  });
});

describe('list_files', () => {
  test('lists a folder, skipping .git and node_modules; recursive walks subfolders; symlinks are marked, not followed', async () => {
    const top = await exec('list_files', {});
    const lines = top.content.split('\n');
    assert.ok(lines.includes('src/'));
    assert.ok(lines.includes('README.md'));
    assert.ok(lines.includes('outside-dir@'));
    assert.ok(!lines.some((l) => l.startsWith('node_modules') || l.startsWith('.git')));
    assert.ok(!lines.includes('src/a.ts'), 'not recursive by default');
    const rec = await exec('list_files', { path: 'src', recursive: true });
    assert.deepEqual(rec.content.split('\n'), ['src/a.ts', 'src/b.ts', 'src/deep/', 'src/deep/c.ts']);
  });

  test('caps the number of entries with a note', async () => {
    const r = await exec('list_files', { recursive: true, max_entries: 2 });
    assert.match(r.content, /\[Listing truncated at 2 entries/);
    assert.equal(r.content.split('\n').filter((l) => !l.startsWith('[')).length, 2);
  });
});

describe('search', () => {
  test('finds text case-insensitively by default, skipping binary files, .git and node_modules', async () => {
    const r = await exec('search', { query: 'needle' });
    assert.equal(r.isError, false);
    assert.deepEqual(r.content.split('\n'), ['src/b.ts:2: // NEEDLE here', 'src/deep/c.ts:1: const needle = "deep";']);
  });

  test('case_sensitive, regex, path and max_results', async () => {
    assert.deepEqual((await exec('search', { query: 'NEEDLE', case_sensitive: true })).content.split('\n'), ['src/b.ts:2: // NEEDLE here']);
    assert.match(
      (await exec('search', { query: 'add\\(\\d, \\d\\)', regex: true })).content,
      /^src\/b\.ts:3: console\.log\(add\(1, 2\)\);$/,
    );
    assert.match((await exec('search', { query: 'needle', path: 'src/deep' })).content, /^src\/deep\/c\.ts:1:/);
    assert.match((await exec('search', { query: 'export', path: 'src/a.ts' })).content, /src\/a\.ts:1: .*\nsrc\/a\.ts:2: /);
    const capped = await exec('search', { query: 'e', max_results: 2 });
    assert.equal(capped.content.split('\n').filter((l) => !l.startsWith('[')).length, 2);
    assert.match(capped.content, /\[Stopped at 2 results/);
  });

  test('caps the size of the output, keeping whole lines', async () => {
    const t = new WorkspaceTools({ root: ws, limits: { maxReadOutputBytes: 40 } });
    const r = await exec('search', { query: 'e', path: 'src' }, harness(), t);
    const lines = r.content.split('\n');
    assert.match(last(lines), /^\[Output capped at 40 B: \d+ more results not shown\.\]$/);
    assert.ok(lines.slice(0, -1).every((l) => /^src\/[a-z/]+\.ts:\d+: /.test(l)));
    assert.match((await exec('search', { query: 'log\\(add\\(\\d, \\d\\)\\)', regex: true })).content, /^src\/b\.ts:3:/);
  });

  test('reports no matches, a bad regex and large files clearly', async () => {
    assert.match(
      (await exec('search', { query: 'zebra-not-there' })).content,
      /^No matches for "zebra-not-there" in \. \(\d+ files searched\)\.$/,
    );
    assert.match((await exec('search', { query: '(', regex: true })).content, /invalid regular expression/);
    const limit = statSync(join(ws, 'src', 'b.ts')).size;
    assert.ok(statSync(join(ws, 'src', 'a.ts')).size > limit);
    const t = new WorkspaceTools({ root: ws, limits: { maxSearchFileBytes: limit } });
    const r = await exec('search', { query: 'add', path: 'src' }, harness(), t);
    assert.match(r.content, new RegExp(`^src/b\\.ts:1: .*\\nsrc/b\\.ts:3: .*\\n\\[Skipped 1 file larger than ${limit} B\\.\\]$`));
  });
});

describe('edit_file and write_file', () => {
  test('an approved edit changes the file; the approval shows a unified diff', async () => {
    writeFileSync(join(ws, 'edit.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    chmodSync(join(ws, 'edit.ts'), 0o640);
    const h = harness();
    const r = await exec('edit_file', { path: 'edit.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' }, h);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Edited edit.ts: 1 replacement.');
    assert.equal(readFileSync(join(ws, 'edit.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
    assert.equal(statSync(join(ws, 'edit.ts')).mode & 0o777, 0o640, 'the atomic write keeps the mode');
    assert.equal(h.requests.length, 1);
    const req = h.requests[0];
    assert.equal(req.tool, 'edit_file');
    assert.equal(req.title, 'Edit edit.ts');
    assert.deepEqual(req.diff, {
      path: 'edit.ts',
      isNewFile: false,
      unified: '--- a/edit.ts\n+++ b/edit.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n const c = 3;\n',
    });
  });

  test('a rejected edit leaves the file unchanged and tells the model why', async () => {
    writeFileSync(join(ws, 'keep.ts'), 'let x = 1;\n');
    const r = await exec(
      'edit_file',
      { path: 'keep.ts', old_string: 'let', new_string: 'var' },
      harness(() => ({ approved: false, reason: 'keep let' })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected this change to keep.ts: keep let The file was not changed.');
    assert.equal(readFileSync(join(ws, 'keep.ts'), 'utf8'), 'let x = 1;\n');
  });

  test('old_string must match exactly once unless replace_all', async () => {
    writeFileSync(join(ws, 'dup.ts'), 'foo();\nfoo();\nbar();\n');
    const h = harness();
    const missing = await exec('edit_file', { path: 'dup.ts', old_string: 'baz();', new_string: 'x' }, h);
    assert.match(missing.content, /old_string was not found in dup.ts/);
    const twice = await exec('edit_file', { path: 'dup.ts', old_string: 'foo();', new_string: 'x();' }, h);
    assert.match(twice.content, /old_string occurs 2 times in dup.ts; include more surrounding lines .* or set replace_all/);
    assert.equal(h.requests.length, 0, 'no approval for an edit that cannot apply');
    const empty = await exec('edit_file', { path: 'dup.ts', old_string: '', new_string: 'x' }, h);
    assert.match(empty.content, /old_string is empty/);
    const same = await exec('edit_file', { path: 'dup.ts', old_string: 'bar();', new_string: 'bar();' }, h);
    assert.match(same.content, /identical/);
    const all = await exec('edit_file', { path: 'dup.ts', old_string: 'foo();', new_string: 'qux();', replace_all: true }, h);
    assert.equal(all.content, 'Edited dup.ts: 2 replacements.');
    assert.equal(readFileSync(join(ws, 'dup.ts'), 'utf8'), 'qux();\nqux();\nbar();\n');
    assert.match(h.requests[0].title, /\(2 replacements\)/);
    assert.match(
      (await exec('edit_file', { path: 'none.ts', old_string: 'a', new_string: 'b' })).content,
      /no such file: none.ts \(use write_file/,
    );
  });

  test('edits with LF strings apply to CRLF files, keeping CRLF; special $ patterns are literal', async () => {
    writeFileSync(join(ws, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
    const r = await exec('edit_file', { path: 'crlf.txt', old_string: 'one\ntwo', new_string: 'ONE $& $1\nTWO' });
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'crlf.txt'), 'utf8'), 'ONE $& $1\r\nTWO\r\nthree\r\n');
  });

  test('a file changed while waiting for approval is not overwritten', async () => {
    writeFileSync(join(ws, 'race.ts'), 'v1\n');
    const r = await exec(
      'edit_file',
      { path: 'race.ts', old_string: 'v1', new_string: 'v2' },
      harness(() => {
        writeFileSync(join(ws, 'race.ts'), 'someone else\n');
        return { approved: true };
      }),
    );
    assert.equal(r.isError, true);
    assert.match(r.content, /changed on disk while waiting for approval/);
    assert.equal(readFileSync(join(ws, 'race.ts'), 'utf8'), 'someone else\n');
  });

  test('write_file creates a new file (and its folders) after approval, with a /dev/null diff', async () => {
    const h = harness();
    const r = await exec('write_file', { path: 'new/dir/file.txt', content: 'hello\nworld' }, h);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Created new/dir/file.txt (2 lines, 11 B).');
    assert.equal(readFileSync(join(ws, 'new', 'dir', 'file.txt'), 'utf8'), 'hello\nworld');
    assert.equal(h.requests[0].title, 'Create new/dir/file.txt');
    assert.deepEqual(h.requests[0].diff, {
      path: 'new/dir/file.txt',
      isNewFile: true,
      unified: '--- /dev/null\n+++ b/new/dir/file.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n\\ No newline at end of file\n',
    });
  });

  test('write_file rejected creates nothing; overwriting shows the diff against the old content', async () => {
    const r = await exec(
      'write_file',
      { path: 'never.txt', content: 'x' },
      harness(() => ({ approved: false })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected this change to never.txt. The file was not changed.');
    assert.equal(existsSync(join(ws, 'never.txt')), false);
    writeFileSync(join(ws, 'over.txt'), 'a\nb\n');
    const h = harness();
    await exec('write_file', { path: 'over.txt', content: 'a\nc\n' }, h);
    assert.equal(h.requests[0].title, 'Overwrite over.txt');
    assert.match(h.requests[0].diff!.unified, /-b\n\+c\n/);
    assert.equal(h.requests[0].diff!.isNewFile, false);
    assert.equal(readFileSync(join(ws, 'over.txt'), 'utf8'), 'a\nc\n');
    assert.match((await exec('write_file', { path: 'src', content: 'x' })).content, /src is a folder/);
  });

  test('writing through a symlink to a file inside the workspace writes the target, keeping the link', async () => {
    writeFileSync(join(ws, 'target.txt'), 'old\n');
    symlinkSync(join(ws, 'target.txt'), join(ws, 'link.txt'));
    const r = await exec('write_file', { path: 'link.txt', content: 'new\n' });
    assert.equal(r.isError, false, r.content);
    assert.equal(readFileSync(join(ws, 'target.txt'), 'utf8'), 'new\n');
  });
});

describe('run_command', () => {
  test('asks approval with the command, captures stdout and stderr interleaved, reports the exit code', async () => {
    const h = harness();
    const r = await exec('run_command', { command: 'echo out1; echo err1 1>&2; sleep 0.05; echo out2; exit 3' }, h);
    assert.equal(h.requests.length, 1);
    assert.equal(h.requests[0].command, 'echo out1; echo err1 1>&2; sleep 0.05; echo out2; exit 3');
    assert.match(h.requests[0].title, /^Run `echo out1/);
    assert.equal(r.isError, true, 'a non-zero exit is an error result');
    assert.match(r.content, /out1\n(err1\n)?.*out2\n\[Exit code 3\]$/s);
    assert.match(r.content, /err1/);
    assert.ok(h.output.join('').includes('out2'), 'live output was forwarded');
  });

  test('runs in the workspace (or a cwd inside it) and succeeds with exit code 0', async () => {
    const root = await exec('run_command', { command: 'pwd' });
    assert.equal(root.isError, false);
    assert.equal(root.content, `${ws}\n[Exit code 0]`);
    const sub = await exec('run_command', { command: 'pwd', cwd: 'src/deep' });
    assert.equal(sub.content, `${join(ws, 'src', 'deep')}\n[Exit code 0]`);
    assert.match((await exec('run_command', { command: 'pwd', cwd: 'README.md' })).content, /is not a folder/);
  });

  test('a rejected command does not run', async () => {
    const r = await exec(
      'run_command',
      { command: 'touch ran.marker' },
      harness(() => ({ approved: false, reason: 'not now' })),
    );
    assert.equal(r.isError, true);
    assert.equal(r.content, 'The user rejected running this command: not now');
    assert.equal(existsSync(join(ws, 'ran.marker')), false);
  });

  test('long output keeps the last 30 KB with a note of what was dropped', async () => {
    const r = await exec('run_command', { command: "head -c 100000 /dev/zero | tr '\\0' 'x'; echo; echo END" });
    assert.equal(r.isError, false);
    const lines = r.content.split('\n');
    assert.equal(lines[0], '[68 KB of earlier output dropped; showing the last 30 KB]');
    assert.match(lines[1], /^x{30000,}$/);
    assert.deepEqual(lines.slice(2), ['END', '[Exit code 0]']);
    assert.ok(r.content.length < 31 * 1024);
  });

  test('a timeout kills the whole process tree', async () => {
    const started = Date.now();
    const r = await exec('run_command', { command: 'sleep 30 & echo $! > bg.pid; wait', timeout_ms: 800 });
    assert.ok(Date.now() - started < 4000, 'returned promptly');
    assert.equal(r.isError, true);
    assert.match(r.content, /\[Timed out after 800 ms; the command was killed\.\]/);
    const pid = Number(readFileSync(join(ws, 'bg.pid'), 'utf8'));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(pid), false, 'the background child was killed with its group');
  });

  test('cancelling (AbortSignal) kills a running command', async () => {
    const h = harness();
    h.ctx.onOutput = () => h.controller.abort();
    const started = Date.now();
    const r = await exec('run_command', { command: 'echo started; sleep 30' }, h);
    assert.ok(Date.now() - started < 3000);
    assert.equal(r.isError, true);
    assert.match(r.content, /^started\n\[Cancelled by the user\. The command was stopped\.\]$/);
  });

  test('cancelling while the approval is pending runs nothing', async () => {
    const h = harness(() => {
      h.controller.abort();
      return { approved: true };
    });
    const r = await exec('run_command', { command: 'touch cancelled.marker' }, h);
    assert.equal(r.content, CANCELLED_BY_USER);
    assert.equal(existsSync(join(ws, 'cancelled.marker')), false);
  });
});

describe('compact, read-only mode and bad calls', () => {
  test('compact requests a compaction with its focus', async () => {
    const h = harness();
    const r = await exec('compact', { focus: 'the failing tests' }, h);
    assert.deepEqual(r, { content: 'Compaction requested; it will run after this batch of tool calls.', isError: false });
    assert.deepEqual(h.compactions, ['the failing tests']);
    await exec('compact', {}, h);
    assert.deepEqual(h.compactions, ['the failing tests', undefined]);
  });

  test('read-only mode offers only read tools and refuses edit, write and run even when called', async () => {
    const ro = new WorkspaceTools({ root: ws, readOnly: true });
    assert.deepEqual(
      ro.definitions().map((d) => d.name),
      [...READ_ONLY_TOOLS],
    );
    const h = harness();
    for (const [name, input] of [
      ['edit_file', { path: 'src/a.ts', old_string: 'a = 1', new_string: 'a = 2' }],
      ['write_file', { path: 'ro.txt', content: 'x' }],
      ['run_command', { command: 'touch ro.marker' }],
    ] as const) {
      const r = await exec(name, input, h, ro);
      assert.equal(r.isError, true);
      assert.match(r.content, new RegExp(`^${name} is not available: this workspace is not trusted, so the agent is in read-only mode`));
    }
    assert.equal(h.requests.length, 0);
    assert.equal(existsSync(join(ws, 'ro.txt')), false);
    assert.equal(existsSync(join(ws, 'ro.marker')), false);
    assert.match(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), /a = 1/);
    assert.equal((await exec('read_file', { path: 'src/a.ts' }, h, ro)).isError, false);
  });

  test('every definition is a valid tool schema; unknown tools and bad inputs are errors, not throws', async () => {
    for (const d of tools().definitions()) {
      assert.equal(d.input_schema.type, 'object');
      assert.ok(d.description.length > 20);
      for (const req of d.input_schema.required ?? []) assert.ok(req in d.input_schema.properties);
    }
    assert.match((await exec('frobnicate', {})).content, /^Unknown tool: frobnicate\. Available tools: read_file, /);
    assert.match((await exec('read_file', 'src/a.ts')).content, /input must be an object/);
    assert.match((await exec('search', { query: 42 })).content, /query is required and must be a string/);
    assert.match((await exec('list_files', { recursive: 'yes' })).content, /recursive must be true or false/);
  });

  test('the registry offers every tool once, in order; only read_file, list_files, search and compact are read-only', async () => {
    const all = ['read_file', 'list_files', 'search', 'edit_file', 'write_file', 'run_command', 'compact'];
    assert.deepEqual(
      tools()
        .definitions()
        .map((d) => d.name),
      all,
    );
    assert.deepEqual([...READ_ONLY_TOOLS], ['read_file', 'list_files', 'search', 'compact']);
    assert.deepEqual(
      new WorkspaceTools({ root: ws, readOnly: true }).definitions().map((d) => d.name),
      [...READ_ONLY_TOOLS],
    );
    // A name that is a key of every object is still an unknown tool.
    for (const name of ['toString', 'constructor', '__proto__']) {
      const r = await exec(name, {});
      assert.equal(r.isError, true);
      assert.match(r.content, new RegExp(`^Unknown tool: ${name}\\. Available tools: read_file, `));
    }
  });
});

describe('diff', () => {
  function apply(a: string[], edits: ReturnType<typeof diffLines>): { from: string[]; to: string[] } {
    return {
      from: edits.filter((e) => e.op !== 'insert').map((e) => e.line),
      to: edits.filter((e) => e.op !== 'delete').map((e) => e.line),
    };
  }

  test('the edit script reproduces both sides and is minimal on random inputs', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 300; n++) {
      const a = Array.from({ length: Math.floor(rand() * 12) }, () => `${'abc'[Math.floor(rand() * 3)]}\n`);
      const b = Array.from({ length: Math.floor(rand() * 12) }, () => `${'abc'[Math.floor(rand() * 3)]}\n`);
      const edits = diffLines(a, b);
      assert.deepEqual(apply(a, edits), { from: a, to: b });
      // Minimal: changes = |a| + |b| - 2·LCS.
      const lcs = lcsLength(a, b);
      assert.equal(edits.filter((e) => e.op !== 'equal').length, a.length + b.length - 2 * lcs);
    }
  });

  test('unified diff separates distant hunks and handles a missing final newline', () => {
    const oldText = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const newText = oldText.replace('line 2\n', 'LINE 2\n').replace('line 19\n', 'LINE 19\n');
    const d = unifiedDiff(oldText, newText, { oldPath: 'a/f', newPath: 'b/f' });
    assert.equal((d.match(/^@@ /gm) ?? []).length, 2);
    assert.match(d, /@@ -1,5 \+1,5 @@\n line 1\n-line 2\n\+LINE 2\n line 3\n/);
    assert.match(d, /@@ -16,5 \+16,5 @@\n line 16\n line 17\n line 18\n-line 19\n\+LINE 19\n line 20\n$/);
    assert.equal(unifiedDiff('x\n', 'x\n'), '');
    assert.equal(unifiedDiff('a\nb', 'a\nb\n'), '--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n');
    assert.equal(unifiedDiff('gone\n', ''), '--- a\n+++ b\n@@ -1 +0,0 @@\n-gone\n');
    assert.deepEqual(splitLines('a\r\nb'), ['a\r\n', 'b']);
  });

  test('large files with a small change diff quickly', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `row ${i}`);
    const started = Date.now();
    const d = unifiedDiff(lines.join('\n'), lines.map((l, i) => (i === 50_000 ? 'changed' : l)).join('\n'));
    assert.ok(Date.now() - started < 5000, 'linear in the file size, not quadratic');
    assert.match(d, /-row 50000\n\+changed/);
  });
});

/** Whether a process runs (a zombie left unreaped by a container's init counts as dead). */
function isAlive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+[ZX]/m.test(status);
  } catch {
    try {
      process.kill(pid, 0);
      return !existsSync('/proc/self');
    } catch {
      return false;
    }
  }
}

const last = <T>(xs: readonly T[]): T => xs[xs.length - 1];

function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
  }
  return dp[a.length][b.length];
}
