// Path confinement against a sibling folder whose name starts with the workspace's (`ws-evil` beside
// `ws`): a `startsWith(root)` check without a separator would let every one of these through.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWorkspacePath, WorkspaceTools, type ApprovalRequest, type ToolCallContext } from '../../src/agent/tools';

let base: string;
let ws: string;
let evil: string;

before(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-sibling-')));
  ws = join(base, 'ws');
  evil = join(base, 'ws-evil');
  mkdirSync(ws, { recursive: true });
  mkdirSync(evil, { recursive: true });
  writeFileSync(join(ws, 'ok.txt'), 'inside\n');
  writeFileSync(join(evil, 'secret.txt'), 'SIBLING SECRET\n');
});

after(() => rmSync(base, { recursive: true, force: true }));

const paths = () => [
  ['../ws-evil/secret.txt', 'relative'],
  [join(base, 'ws-evil', 'secret.txt'), 'absolute'],
  [join(ws + '-evil', 'secret.txt'), 'absolute, spelled as root + "-evil"'],
];

test('resolveWorkspacePath refuses a sibling folder whose name starts with the workspace name', () => {
  for (const [p, how] of paths()) assert.throws(() => resolveWorkspacePath(ws, p), /path escapes the workspace/, how);
  assert.equal(resolveWorkspacePath(ws, 'ok.txt').rel, 'ok.txt');
});

test('read_file, write_file, list_files and search refuse the sibling folder, relative and absolute', async () => {
  const requests: ApprovalRequest[] = [];
  const tools = new WorkspaceTools({ root: ws });
  const ctx: ToolCallContext = {
    toolUseId: 'toolu_sib',
    signal: new AbortController().signal,
    requestApproval: async (req) => {
      requests.push({ ...req, toolUseId: 'toolu_sib' });
      return { approved: true };
    },
    requestCompaction: () => {},
    onOutput: () => {},
  };
  const exec = (name: string, input: unknown) => tools.execute({ id: 'toolu_sib', name, input }, ctx);
  for (const [p, how] of paths()) {
    const read = await exec('read_file', { path: p });
    assert.equal(read.isError, true, `read_file ${how}`);
    assert.doesNotMatch(read.content, /SIBLING SECRET/);
    const dir = p.replace(/secret\.txt$/, '');
    assert.match((await exec('list_files', { path: dir })).content, /path escapes the workspace/, `list_files ${how}`);
    assert.match((await exec('search', { query: 'SIBLING', path: dir })).content, /path escapes the workspace/, `search ${how}`);
    const write = await exec('write_file', { path: p.replace('secret.txt', 'planted.txt'), content: 'pwned' });
    assert.equal(write.isError, true, `write_file ${how}`);
  }
  assert.equal(requests.length, 0, 'no approval was asked for a refused path');
  assert.equal(existsSync(join(evil, 'planted.txt')), false);
});
