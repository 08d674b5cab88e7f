// The artifact ledger: what the extraction finds in archived messages (this agent's tools and the
// recorded agents'), how ledgers merge and accumulate, and how a budget folds the oldest entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CharEstimateTokenizer, MemoizedMessageCounter, type Message } from '../../src/core/index';
import type { ToolResultBlock, ToolUseBlock } from '../../src/core/conversation/conversation';
import { exitCodeOf, extractLedger, INSTRUCTION_VERBATIM_CHARS, rawLedger } from '../../src/core/ledger/ledgerExtract';
import { fitLedger, LEDGER_HEADING, ledgerTokens, mergeLedgers, parseLedger, renderLedger } from '../../src/core/ledger/ledgerMerge';

const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
let n = 0;
function exchange(name: string, input: unknown, result: string, isError = false): Message[] {
  const id = `t${++n}`;
  const use: ToolUseBlock = { type: 'tool_use', id, name, input };
  const res: ToolResultBlock = { type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) };
  return [
    { id: `a${n}`, role: 'assistant', content: [use] },
    { id: `r${n}`, role: 'user', content: [res] },
  ];
}
const prompt = (id: string, text: string): Message => ({ id, role: 'user', content: text });

test('ledger: files read, edited and created by this agent, Claude Code and Codex tools, with counts and the last action', () => {
  const l = rawLedger([
    prompt('u1', 'fix the parser'),
    ...exchange('read_file', { path: 'src/a.ts' }, 'text'),
    ...exchange('edit_file', { path: 'src/a.ts', old: 'x', new: 'y' }, 'Edited src/a.ts'),
    ...exchange('write_file', { path: 'src/new.ts', content: '' }, 'Wrote'),
    ...exchange('Read', { file_path: '/r/b.ts' }, 'text'),
    ...exchange('MultiEdit', { file_path: '/r/b.ts', edits: [] }, 'ok'),
    ...exchange('Write', { file_path: '/r/b.ts', content: '' }, 'ok'),
    ...exchange(
      'apply_patch',
      { input: '*** Begin Patch\n*** Add File: docs/x.md\n+hi\n*** Update File: package.json\n@@\n*** End Patch' },
      'Done',
    ),
  ]);
  assert.deepEqual(l.files, [
    { path: 'src/a.ts', read: 1, edited: 1, created: 0, lastAction: 'edited' },
    { path: 'src/new.ts', read: 0, edited: 0, created: 1, lastAction: 'created' },
    { path: '/r/b.ts', read: 1, edited: 2, created: 0, lastAction: 'edited' },
    { path: 'docs/x.md', read: 0, edited: 0, created: 1, lastAction: 'created' },
    { path: 'package.json', read: 0, edited: 1, created: 0, lastAction: 'edited' },
  ]);
  assert.deepEqual(l.instructions, ['fix the parser']);
});

test('ledger: commands with the exit status their results state, in every recorded form', () => {
  assert.equal(exitCodeOf({ type: 'tool_result', tool_use_id: 'x', content: 'out\n[Exit code 2]' }), 2);
  assert.equal(exitCodeOf({ type: 'tool_result', tool_use_id: 'x', content: 'Chunk ID: 1\nProcess exited with code 0\nOutput:' }), 0);
  assert.equal(exitCodeOf({ type: 'tool_result', tool_use_id: 'x', content: 'Exit code 127\nnot found', is_error: true }), 127);
  assert.equal(exitCodeOf({ type: 'tool_result', tool_use_id: 'x', content: 'killed', is_error: true }), null);
  assert.equal(exitCodeOf(undefined), null);
  const l = rawLedger([
    ...exchange('run_command', { command: 'npm   test' }, 'fail\n[Exit code 1]', true),
    ...exchange('Bash', { command: 'ls', description: 'list' }, 'a b'),
    ...exchange('exec_command', { cmd: 'git status', workdir: '/w' }, 'Process exited with code 0\nOutput:\n'),
    ...exchange('shell', { command: ['bash', '-lc', 'make build'] }, 'Exit code: 3\nOutput: x'),
  ]);
  assert.deepEqual(l.commands, [
    { command: 'npm test', exitCode: 1 },
    { command: 'ls', exitCode: 0 },
    { command: 'git status', exitCode: 0 },
    { command: 'make build', exitCode: 3 },
  ]);
});

test('ledger: an error is resolved when a later call on the same target succeeds, else it stays unresolved', () => {
  const l = rawLedger([
    ...exchange('run_command', { command: 'npm test' }, 'boom\n[Exit code 1]', true),
    ...exchange('read_file', { path: 'missing.ts' }, 'ENOENT: no such file', true),
    ...exchange('edit_file', { path: 'src/a.ts' }, 'fixed'),
    ...exchange('run_command', { command: 'npm test' }, 'ok\n[Exit code 0]'),
  ]);
  assert.equal(l.errors.length, 2);
  assert.match(l.errors[0].text, /^run_command npm test: boom/);
  assert.equal(l.errors[0].resolved, true);
  assert.match(l.errors[1].text, /^read_file missing\.ts: ENOENT/);
  assert.equal(l.errors[1].resolved, false);
});

test('ledger: genuine prompts only; a long one is clipped with a pointer to the transcript', () => {
  const long = 'x'.repeat(INSTRUCTION_VERBATIM_CHARS + 50);
  const l = rawLedger(
    [
      prompt('u1', 'short one'),
      { id: 'c1', role: 'user', content: '<command-name>/clear</command-name>', artefact: 'command' },
      { id: 's1', role: 'user', content: 'old summary', synthetic: 'summary' },
      prompt('u2', long),
    ],
    '/t/transcript.jsonl',
  );
  assert.equal(l.instructions.length, 2);
  assert.equal(l.instructions[0], 'short one');
  assert.ok(l.instructions[1].startsWith('x'.repeat(INSTRUCTION_VERBATIM_CHARS)));
  assert.ok(!l.instructions[1].includes(long));
  assert.match(l.instructions[1], /clipped: 650 chars; full prompt in the transcript \/t\/transcript\.jsonl, message u2/);
});

test('ledger: merging accumulates (counts add up, the newer action and position win, instructions are not repeated)', () => {
  const prev = rawLedger([prompt('u1', 'one'), ...exchange('read_file', { path: 'a' }, 'x'), ...exchange('read_file', { path: 'b' }, 'x')]);
  const next = rawLedger([prompt('u1', 'one'), prompt('u2', 'two'), ...exchange('edit_file', { path: 'a' }, 'ok')]);
  const merged = mergeLedgers({ ...prev, folded: { files: 1, commands: 2, errors: 0, instructions: 0 } }, next);
  assert.deepEqual(
    merged.files.map((f) => [f.path, f.read, f.edited, f.lastAction]),
    [
      ['b', 1, 0, 'read'],
      ['a', 1, 1, 'edited'],
    ],
  );
  assert.deepEqual(merged.instructions, ['one', 'two']);
  assert.deepEqual(merged.folded, { files: 1, commands: 2, errors: 0, instructions: 0 });
  assert.equal(mergeLedgers(null, next), next);
});

test('ledger: a budget folds the oldest entries, commands first and instructions last, and says how many', () => {
  const messages: Message[] = [prompt('u0', 'the first instruction')];
  for (let i = 0; i < 60; i++) messages.push(...exchange('run_command', { command: `echo ${i} ${'y'.repeat(40)}` }, '[Exit code 0]'));
  for (let i = 0; i < 10; i++) messages.push(...exchange('read_file', { path: `src/file${i}.ts` }, 'x'));
  const full = rawLedger(messages);
  const fullTokens = ledgerTokens(full, counter);
  const budget = Math.floor(fullTokens / 3);
  const fitted = fitLedger(full, budget, counter);
  assert.ok(ledgerTokens(fitted, counter) <= budget, `${ledgerTokens(fitted, counter)} <= ${budget}`);
  assert.equal(fitted.files.length, 10, 'files survive while commands can be folded');
  assert.deepEqual(fitted.instructions, ['the first instruction']);
  assert.ok(fitted.folded && fitted.folded.commands > 0);
  assert.equal(fitted.commands.length + fitted.folded.commands, 60);
  assert.equal(fitted.commands.at(-1)?.command, full.commands.at(-1)?.command, 'the newest commands stay');
  assert.match(renderLedger(fitted), /Older entries folded to fit: \d+ commands/);
  // extractLedger = merge with the previous ledger, then fit.
  const extracted = extractLedger(messages, { budgetTokens: budget, counter, previous: rawLedger([prompt('p', 'before')]) });
  assert.equal(extracted.instructions[0], 'before');
  assert.ok(ledgerTokens(extracted, counter) <= budget);
  assert.deepEqual(fitLedger(full, 1, counter), { files: [], commands: [], errors: [], instructions: [] });
});

test('ledger: rendered as compact markdown the model reads', () => {
  const text = renderLedger({
    files: [{ path: 'src/a.ts', read: 2, edited: 1, created: 0, lastAction: 'edited' }],
    commands: [{ command: 'npm test', exitCode: null }],
    errors: [{ text: 'run_command npm test: boom', resolved: false }],
    instructions: ['fix it'],
  });
  assert.equal(
    text,
    [
      LEDGER_HEADING,
      'User instructions (oldest first):',
      '- fix it',
      'Files:',
      '- src/a.ts (read 2, edited 1; last edited)',
      'Commands:',
      '- `npm test` -> exit ?',
      'Errors:',
      '- (unresolved) run_command npm test: boom',
    ].join('\n'),
  );
});

test('ledger: code names the archived assistant text set in backticks, newest last; a command run again is one entry with its runs', () => {
  const say = (id: string, text: string): Message => ({ id, role: 'assistant', content: [{ type: 'text', text }] });
  const run = (id: string, command: string, exit: number): Message[] => [
    { id: `${id}u`, role: 'assistant', content: [{ type: 'tool_use', id: `t${id}`, name: 'Bash', input: { command } }] },
    { id: `${id}r`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${id}`, content: `Exit code ${exit}` }] },
  ];
  const archived: Message[] = [
    { id: 'p', role: 'user', content: 'fix the share dialog' },
    say('a1', 'Now update `getShareKeys` to use the TTL, and drop `@Unique` from `ShareEntity`.'),
    ...run('c1', 'pnpm test', 1),
    say('a2', 'Not a name: `pnpm test --watch`, `42`, `src/app.ts`. Again: `getShareKeys`.'),
    ...run('c2', 'pnpm test', 0),
  ];
  const raw = rawLedger(archived);
  assert.deepEqual(
    raw.names,
    ['@Unique', 'ShareEntity', 'getShareKeys'],
    'deduplicated, newest last; commands, numbers and paths left out',
  );
  assert.deepEqual(raw.commands, [{ command: 'pnpm test', exitCode: 0, runs: 2 }]);
  const text = renderLedger(raw);
  assert.match(text, /Names in use: `@Unique`, `ShareEntity`, `getShareKeys`/);
  assert.match(text, /`pnpm test` -> exit 0 \(run 2 times\)/);
  // Merging: a name seen again moves to the end; the same command adds its runs.
  const merged = mergeLedgers(raw, rawLedger([say('a3', 'Then `ShareEntity` again.'), ...run('c3', 'pnpm test', 0)]));
  assert.deepEqual(merged.names, ['@Unique', 'getShareKeys', 'ShareEntity']);
  assert.deepEqual(merged.commands, [{ command: 'pnpm test', exitCode: 0, runs: 3 }]);
  assert.deepEqual(parseLedger(JSON.parse(JSON.stringify(merged))), merged, 'stored and read back');
  // Folding drops names first, oldest first.
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const full = ledgerTokens(merged, counter);
  const fitted = fitLedger(merged, full - 3, counter);
  assert.ok(ledgerTokens(fitted, counter) <= full - 3);
  const kept = fitted.names ?? [];
  assert.ok(
    kept.length < 3 && kept.every((n, i) => n === merged.names!.slice(-kept.length)[i]),
    `the newest names stay: ${kept.join(', ')}`,
  );
  assert.deepEqual([fitted.commands.length, fitted.files.length, fitted.instructions.length], [1, 0, 1], 'nothing else folded first');
});
