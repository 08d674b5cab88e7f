// The tool registry (see toolWorkspace.ts): every tool offered once, in order, with a valid schema;
// read-only mode offers only the read tools and refuses the others even when called; compact
// requests a compaction; unknown tools and bad inputs are error results, not throws.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { READ_ONLY_TOOLS, WorkspaceTools } from '../../src/agent/tools';
import { createToolWorkspace, harness, removeToolWorkspace, toolRunner } from './toolWorkspace';

let base: string;
let ws: string;
before(() => ({ base, ws } = createToolWorkspace()));
after(() => removeToolWorkspace(base));
const { tools, exec } = toolRunner(() => ws);

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
    const all = ['read_file', 'list_files', 'search', 'edit_file', 'write_file', 'run_command', 'compact', 'todo'];
    assert.deepEqual(
      tools()
        .definitions()
        .map((d) => d.name),
      all,
    );
    assert.deepEqual([...READ_ONLY_TOOLS], ['read_file', 'list_files', 'search', 'compact', 'todo']);
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
