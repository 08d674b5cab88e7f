// Superseded tool results (microCompact.supersede): which later call supersedes which result, for
// Splitpoint's own tools and for Claude Code's and Codex's calls as the importers represent them; and
// how micro-compaction replaces them: a pointer naming the later call, the pair kept, in the same
// batches as old results (a superseded result never starts a batch on its own; cache-aware holds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, ToolResultBlock } from '../../src/core/conversation/conversation';
import { supersessionsOf } from '../../src/core/pipeline/supersede';
import { callEffect } from '../../src/core/pipeline/supersedeCalls';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { IncrementalMicroCompactor } from '../../src/core/pipeline/microCompactor';
import { planViolations } from '../../src/core/conversation/invariants';
import { CharCounter, ctxWith, user } from '../helpers/build';

/** One tool exchange: the call `name(input)` and its result `text` (is_error when `error`). */
function exchange(id: string, name: string, input: unknown, text: string, error = false): Message[] {
  const result: ToolResultBlock = { type: 'tool_result', tool_use_id: id, content: text, ...(error ? { is_error: true } : {}) };
  return [
    { id: `a-${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    { id: `r-${id}`, role: 'user', content: [result] },
  ];
}

const conversation = (...exchanges: Message[][]): Message[] => [user('u', 'Go.'), ...exchanges.flat()];
const what = (messages: Message[]) => Object.fromEntries([...supersessionsOf(messages)].map(([id, s]) => [id, s.what]));

const BODY = 'line of the file\n'.repeat(40);
/** A Codex exec_command result as the rollout records it. */
const codexOutput = (code: number, out: string) =>
  `Chunk ID: 0a1b2c\nWall time: 0.1000 seconds\nProcess exited with code ${code}\nOriginal token count: 12\nOutput:\n${out}`;

test("Splitpoint's tools: read again (whole), edit after read, command re-run; a partial re-read and failed calls supersede nothing", () => {
  const messages = conversation(
    exchange('t1', 'read_file', { path: 'src/a.ts', start_line: 10, end_line: 20 }, BODY),
    exchange('t2', 'read_file', { path: './src/a.ts' }, BODY),
    exchange('t3', 'read_file', { path: 'src/a.ts', start_line: 30, end_line: 60 }, BODY),
    exchange('t4', 'read_file', { path: 'src/b.ts' }, BODY),
    exchange('t5', 'edit_file', { path: 'src/b.ts', old_string: 'x', new_string: 'y' }, 'Error: old_string not found', true),
    exchange('t6', 'run_command', { command: 'npm test' }, `${BODY}[Exit code 0]`),
    exchange('t7', 'run_command', { command: 'npm test' }, `${BODY}[Exit code 1]`, true),
    exchange('t8', 'write_file', { path: 'src/a.ts', content: 'new' }, 'Wrote src/a.ts'),
    exchange('t9', 'run_command', { command: ' npm test ' }, `${BODY}[Exit code 0]`),
  );
  assert.deepEqual(what(messages), {
    // The whole file read covers the lines 10-20 read before.
    t1: 'src/a.ts was read again in call 2',
    // Lines 30-60 do not cover the whole file: t2 stands until the write in call 8, as does t3.
    t2: 'src/a.ts was edited in call 8',
    t3: 'src/a.ts was edited in call 8',
    // t4 is not superseded by t5's failed edit; t6 not by t7's failed run, but by t9's.
    t6: '`npm test` was run again in call 9',
    // A failed run is superseded by a later successful one.
    t7: '`npm test` was run again in call 9',
  });
});

test('Claude Code: Read of a covering range, Edit/MultiEdit/Write after Read, Bash and Grep re-run; a different range and is_error do not', () => {
  const f = '/repo/src/store.ts';
  const messages = conversation(
    exchange('r1', 'Read', { file_path: f, offset: 100, limit: 50 }, BODY),
    exchange('r2', 'Read', { file_path: f, offset: 200, limit: 50 }, BODY),
    exchange('r3', 'Read', { file_path: f, offset: 1, limit: 400 }, BODY),
    exchange('r4', 'Read', { file_path: '/repo/src/other.ts' }, BODY),
    exchange('e1', 'MultiEdit', { file_path: '/repo/src/other.ts', edits: [] }, 'Applied 2 edits'),
    exchange('b1', 'Bash', { command: 'pnpm test', description: 'Run the tests' }, BODY),
    exchange('b2', 'Bash', { command: 'pnpm test', description: 'Again' }, `${BODY}\nexit code 1`, true),
    exchange('g1', 'Grep', { pattern: 'useAuth', path: '/repo/src', output_mode: 'content' }, BODY),
    exchange('g2', 'Grep', { output_mode: 'content', path: '/repo/src', pattern: 'useAuth' }, BODY),
    exchange('g3', 'Grep', { pattern: 'useAuth', path: '/repo/src', output_mode: 'files_with_matches' }, BODY),
    exchange('r5', 'Read', { file_path: f }, 'File unchanged since last read.'),
    exchange('w1', 'Write', { file_path: f, content: '' }, 'File created successfully'),
  );
  assert.deepEqual(what(messages), {
    r1: '/repo/src/store.ts was read again in call 3',
    r2: '/repo/src/store.ts was read again in call 3',
    r4: '/repo/src/other.ts was edited in call 5',
    // b1 stands: the only re-run failed. Key order does not matter; another output mode is another search.
    g1: '`Grep useAuth` was run again in call 9',
    // r3 is not superseded by r5 (it only says the file is unchanged), but by the Write, as r5 is.
    r3: '/repo/src/store.ts was edited in call 12',
    r5: '/repo/src/store.ts was edited in call 12',
  });
  assert.deepEqual(callEffect('Edit', { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' }), {
    kind: 'write',
    paths: ['/repo/a.ts'],
  });
});

test('Codex: sed/cat/nl reads resolved against the workdir, apply_patch after a read, exec_command and shell re-runs; non-zero exits do not supersede', () => {
  const at = { workdir: '/repo', yield_time_ms: 10000, max_output_tokens: 12000 };
  const messages = conversation(
    exchange('c1', 'exec_command', { cmd: "sed -n '1,120p' src/a.ts", ...at }, codexOutput(0, BODY)),
    exchange('c2', 'exec_command', { cmd: 'nl -ba /repo/src/a.ts | sed -n "100,300p"', ...at }, codexOutput(0, BODY)),
    exchange('c3', 'exec_command', { cmd: 'cat /repo/src/a.ts', ...at }, codexOutput(0, BODY)),
    exchange('c4', 'exec_command', { cmd: 'bun test', ...at }, codexOutput(0, BODY)),
    exchange('c5', 'exec_command', { cmd: 'bun test', ...at }, codexOutput(1, BODY)),
    exchange('c6', 'exec_command', { cmd: 'bun test', workdir: '/repo/packages/core' }, codexOutput(0, BODY)),
    exchange('c7', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch' }, 'Success.'),
    exchange('c8', 'shell', { command: ['bash', '-lc', 'git status --short'], workdir: '/repo' }, codexOutput(0, BODY)),
    exchange('c9', 'shell', { command: ['bash', '-lc', 'git status --short'], workdir: '/repo' }, codexOutput(0, BODY)),
  );
  assert.deepEqual(what(messages), {
    // Lines 100-300 do not cover 1-120; the whole file (cat) covers both.
    c1: '/repo/src/a.ts was read again in call 3',
    c2: '/repo/src/a.ts was read again in call 3',
    // The patch names src/a.ts: not under the last workdir (/repo/packages/core), so the one read path ending in it.
    c3: '/repo/src/a.ts was edited in call 7',
    c8: '`git status --short` was run again in call 9',
    // c4 stands: c5 exited 1 and c6 ran in another folder.
  });
  assert.deepEqual(
    callEffect('exec_command', { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: b.md\n+x\n*** End Patch\nEOF", workdir: '/r' }),
    {
      kind: 'write',
      paths: ['/r/b.md'],
      relative: ['b.md'],
    },
  );
  assert.deepEqual(callEffect('exec_command', { cmd: 'head -n 40 a.ts', workdir: '/r' }), {
    kind: 'read',
    path: '/r/a.ts',
    range: { start: 1, end: 40 },
  });
});

/** `others` reads of other files, then `n` reads of the whole `f.ts` (every result 2,000 characters). */
function rereads(n: number, others = 0): Message[] {
  const ex: Message[][] = [];
  for (let i = 1; i <= others; i++) ex.push(exchange(`o${i}`, 'read_file', { path: `o${i}.ts` }, 'o'.repeat(2000)));
  for (let i = 1; i <= n; i++) ex.push(exchange(`f${i}`, 'read_file', { path: 'f.ts' }, 'f'.repeat(2000)));
  return conversation(...ex);
}

const resultText = (plan: { output: Message[] }, id: string): string =>
  ((plan.output.find((m) => m.id === `r-${id}`)!.content as ToolResultBlock[])[0].content as string) ?? '';

test('a superseded result becomes a pointer whatever its age, the pair kept, in the batch of old results', () => {
  // keepRecent 3: o1 and o2 are old; f1 and f2 (superseded by f3) are recent and ride along with them.
  const messages = rereads(3, 2);
  const ctx = ctxWith(new CharCounter());
  const plan = planMicroCompact(messages, { keepRecent: 3, minChars: 100, supersede: true }, ctx);
  assert.equal(plan.microCompaction!.action, 'cleared');
  assert.equal(resultText(plan, 'f1'), '[superseded: read again in call 4]');
  assert.equal(resultText(plan, 'f2'), '[superseded: read again in call 5]');
  assert.equal(resultText(plan, 'f3'), 'f'.repeat(2000));
  assert.equal(resultText(plan, 'o1'), '[Previous: used read_file]');
  assert.equal(resultText(plan, 'o2'), '[Previous: used read_file]');
  assert.deepEqual(planViolations(messages, plan), []);
  const note = plan.output.find((m) => m.id === 'r-f1')!.truncated!.results[0];
  assert.deepEqual(note, { toolUseId: 'f1', toolName: 'read_file', originalChars: 2000, superseded: 'f.ts was read again in call 4' });
  assert.ok(
    plan.notes.some((n) => /2 of the batch's results are superseded/.test(n)),
    plan.notes.join('\n'),
  );
  // Off: the same plan without pointers (f1 and f2 are recent, so kept).
  const off = planMicroCompact(messages, { keepRecent: 3, minChars: 100, supersede: false }, ctx);
  assert.equal(resultText(off, 'f1'), 'f'.repeat(2000));
  assert.equal(resultText(off, 'o1'), '[Previous: used read_file]');
  assert.equal(plan.tokensAfter, off.tokensAfter - 2 * 2000 + '[superseded: read again in call 4]'.length * 2);
});

test('superseded results never start a batch on their own; the thresholds weigh the old results only', () => {
  const ctx = ctxWith(new CharCounter());
  // No old result (keepRecent 5): f1 and f2 wait.
  const waiting = planMicroCompact(rereads(3), { keepRecent: 5, minChars: 100, supersede: true }, ctx);
  assert.equal(waiting.noop, true);
  assert.equal(waiting.microCompaction!.action, 'held');
  assert.match(waiting.notes[0], /2 superseded results wait for the next batch of old results/);
  // triggerTokens 3,000: the old result (o1: 2,000) does not reach it, whatever the recent superseded f1, f2 add.
  const under = planMicroCompact(rereads(3, 1), { keepRecent: 3, minChars: 100, triggerTokens: 3000, supersede: true }, ctx);
  assert.equal(under.microCompaction!.action, 'held');
  assert.match(under.notes[0], /total 2000 tokens, under triggerTokens 3000 \(2 superseded results wait for it\)/);
});

test('cache-aware: a batch with superseded results is held when it does not pay back the prefix it re-writes', () => {
  const messages = rereads(3, 2);
  const settings = { keepRecent: 3, minChars: 100, supersede: true, cacheAware: true, horizonTurns: 1 };
  const cache = { cachedPrefixTokens: 1_000_000, model: 'claude-sonnet-4-5' };
  const held = planMicroCompact(messages, settings, ctxWith(new CharCounter(), { cache }));
  assert.equal(held.microCompaction!.action, 'held');
  assert.equal(held.noop, true);
  assert.deepEqual(held.output, messages);
  // The incremental view decides the same: nothing replaced.
  const micro = new IncrementalMicroCompactor(settings, new CharCounter());
  micro.sync(messages, 0, { cache });
  assert.equal(micro.cleared.size, 0);
  assert.deepEqual(micro.messages, messages);
  // Over a long horizon it pays: cleared, pointers and all.
  const pays = planMicroCompact(messages, { ...settings, horizonTurns: 1000 }, ctxWith(new CharCounter(), { cache }));
  assert.equal(pays.microCompaction!.action, 'cleared');
  assert.equal(resultText(pays, 'f1'), '[superseded: read again in call 4]');
});

test('the incremental view replaces a superseded result when the later call arrives, and keeps a cleared placeholder as it is', () => {
  const settings = { keepRecent: 1, minChars: 100, supersede: true };
  const micro = new IncrementalMicroCompactor(settings, new CharCounter());
  const messages = rereads(1, 2); // o1, o2, f1: o1 and o2 are old and cleared as placeholders
  micro.sync(messages);
  assert.deepEqual([...micro.cleared].sort(), ['o1', 'o2']);
  // o2.ts read again (call 4) and f.ts read again (call 5): f1 (recent) becomes a pointer with the batch o3 ages into.
  const later = [
    ...messages,
    ...exchange('o3', 'read_file', { path: 'o2.ts' }, 'o'.repeat(2000)),
    ...exchange('f2', 'read_file', { path: 'f.ts' }, 'f'.repeat(2000)),
  ];
  micro.sync(later);
  // o2 stays "[Previous: …]" (a new text would re-write the cached prefix for nothing); f1 is a pointer.
  const text = (id: string) => ((micro.messages.find((m) => m.id === `r-${id}`)!.content as ToolResultBlock[])[0].content as string) ?? '';
  assert.equal(text('o2'), '[Previous: used read_file]');
  assert.equal(text('f1'), '[superseded: read again in call 5]');
  assert.equal(text('o3'), '[Previous: used read_file]');
  assert.deepEqual([...micro.clearedPointers], ['f1']);
  // The pure strategy, told what the view had cleared (none as pointers), gives the same view.
  const plan = planMicroCompact(
    later,
    settings,
    ctxWith(new CharCounter(), { microCleared: new Set(['o1', 'o2']), microPointers: new Set() }),
  );
  assert.deepEqual(micro.messages, plan.output);
});

test('a message whose later result was cleared first (a pointer) lists its cleared results in block order, as the pure strategy does', () => {
  const settings = { keepRecent: 3, minChars: 100, supersede: true };
  const micro = new IncrementalMicroCompactor(settings, new CharCounter());
  // t1 and t2 answered in one message; t3 runs t2's search again: t2 becomes a pointer, with o1 (old) in one batch.
  const parallel: Message[] = [
    {
      id: 'a-t',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 't2', name: 'search', input: { query: 'q' } },
      ],
    },
    {
      id: 'r-t',
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'a'.repeat(2000) },
        { type: 'tool_result', tool_use_id: 't2', content: 's'.repeat(2000) },
      ],
    },
  ];
  const messages = conversation(
    exchange('o1', 'read_file', { path: 'o.ts' }, 'o'.repeat(2000)),
    parallel,
    exchange('t3', 'search', { query: 'q' }, 's'.repeat(2000)),
  );
  micro.sync(messages);
  assert.deepEqual([...micro.cleared].sort(), ['o1', 't2']);
  // Two more results: t1 ages out and is cleared in the next batch, in the message where t2 already is.
  const later = [
    ...messages,
    ...exchange('t4', 'read_file', { path: 'b.ts' }, 'b'.repeat(2000)),
    ...exchange('t5', 'read_file', { path: 'c.ts' }, 'c'.repeat(2000)),
  ];
  const before = micro.cleared;
  const pointers = micro.clearedPointers;
  micro.sync(later);
  const notes = micro.messages.find((m) => m.id === 'r-t')!.truncated!.results.map((r) => r.toolUseId);
  assert.deepEqual(notes, ['t1', 't2']);
  const plan = planMicroCompact(later, settings, ctxWith(new CharCounter(), { microCleared: before, microPointers: pointers }));
  assert.deepEqual(micro.messages, plan.output);
});
