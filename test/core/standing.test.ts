// The standing section's pure parts (issue 23): the caps (per source, in all, at a line end, sources not
// sent use none of the budget), the rendering (each source under its name, a cut note, the checklist),
// and the session meta's keptInstructions (bad entries dropped with a warning naming the field).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capInstructions, cutNote, renderStanding, systemWithStanding } from '../../src/core/standing/render';
import { keepInstruction, parseKeptInstructions, removeKeptInstruction } from '../../src/core/standing/keptInstructions';
import { parseSessionMeta } from '../../src/core/session/sessionMeta';
import { newSessionMeta } from '../../src/core/session/session';

const src = (name: string, text: string, sent = true) => ({ name, kind: 'file' as const, path: name, text, sent });

test('caps: each source at most perSource, all at most total, earlier sources first; a cut falls on a line end near the limit', () => {
  const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i} ${'y'.repeat(15)}`).join('\n'); // 18 chars a line
  const out = capInstructions([src('A', lines('a', 10)), src('B', lines('b', 10)), src('C', lines('c', 10))], {
    perSource: 150,
    total: 300,
  });
  assert.deepEqual(
    out.map((s) => [s.name, s.text.length, s.truncated, s.originalChars]),
    [
      ['A', 132, true, 189],
      ['B', 132, true, 189],
      ['C', 36, true, 189], // what was left of the total; no line end near it: cut mid-line
    ],
  );
  assert.ok(out[0]!.text.endsWith('y') && !out[0]!.text.endsWith('\n'), 'cut at a line end');
  assert.ok(out.reduce((n, s) => n + s.text.length, 0) <= 300);
});

test('a source not sent keeps no text and uses none of the budget; an originalChars larger than the text (a big file read in part) counts as cut', () => {
  const out = capInstructions(
    [src('hidden', 'x'.repeat(100), false), src('big', 'z'.repeat(50)), { ...src('part', 'p'.repeat(40)), originalChars: 90_000 }],
    { perSource: 100, total: 100 },
  );
  assert.deepEqual(
    out.map((s) => [s.name, s.text.length, s.sent, s.truncated, s.originalChars]),
    [
      ['hidden', 0, false, false, 100],
      ['big', 50, true, false, 50],
      ['part', 40, true, true, 90_000],
    ],
  );
});

test('the rendering: each sent source under its name with the cut note, the task list as a checklist; nothing to send renders nothing', () => {
  const [agents, hidden] = capInstructions([src('AGENTS.md', 'Use tabs.\n'.repeat(5)), src('pkg/CLAUDE.md', 'secret', false)], {
    perSource: 20,
    total: 1000,
  });
  const text = renderStanding({
    instructions: [agents!, hidden!],
    todo: [
      { id: 'a', text: 'Parse', status: 'done' },
      { id: 'b', text: 'Lex', status: 'in_progress' },
      { id: 'c', text: 'Ship', status: 'pending' },
    ],
  });
  assert.match(text, /^# Standing instructions\n/);
  assert.ok(text.includes(`## AGENTS.md\nUse tabs.\nUse tabs.\n${cutNote(agents!)}`), text);
  assert.equal(cutNote(agents!), '[Cut to fit the instruction caps: 19 of 50 characters of AGENTS.md are included.]');
  assert.ok(!text.includes('secret') && !text.includes('pkg/CLAUDE.md'), 'a listed-only source is not in the prompt');
  assert.ok(text.endsWith('[x] Parse (id a)\n[~] Lex (id b)\n[ ] Ship (id c)'));
  assert.equal(renderStanding({ instructions: [hidden!], todo: [] }), '');
  assert.equal(systemWithStanding('BASE', { instructions: [], todo: [] }), 'BASE');
  assert.equal(systemWithStanding('BASE', undefined), 'BASE');
});

test('kept instructions: kept once, removed, persisted through saveMeta; the meta field is checked entry by entry', () => {
  let saves = 0;
  const session = { meta: newSessionMeta('s'), saveMeta: () => saves++ };
  assert.equal(keepInstruction(session, 'u1', '  Always tabs.  ', 5), true);
  assert.equal(keepInstruction(session, 'u1', 'again', 6), false);
  assert.equal(keepInstruction(session, 'u2', '   ', 6), false, 'nothing to keep');
  assert.deepEqual(session.meta.keptInstructions, [{ messageId: 'u1', text: 'Always tabs.', at: 5 }]);
  assert.equal(removeKeptInstruction(session, 'u1'), true);
  assert.equal(removeKeptInstruction(session, 'u1'), false);
  assert.equal(session.meta.keptInstructions, undefined);
  assert.equal(saves, 2);

  const parsed = parseKeptInstructions([
    { messageId: 'u1', text: 'ok', at: 1 },
    { messageId: '', text: 'x', at: 1 },
    'nope',
    { messageId: 'u3', text: 'y' },
  ]);
  assert.deepEqual(parsed.items, [{ messageId: 'u1', text: 'ok', at: 1 }]);
  assert.deepEqual(
    parsed.problems.map((p) => p.split(':')[0]),
    ['keptInstructions[1].messageId', 'keptInstructions[2]', 'keptInstructions[3].at'],
  );
  const meta = { ...newSessionMeta('s'), keptInstructions: [{ messageId: 'u1', text: 'ok', at: 1 }, { text: 7 }] };
  const read = parseSessionMeta(JSON.stringify(meta), 'f.meta.json', 's');
  assert.deepEqual(read.meta.keptInstructions, [{ messageId: 'u1', text: 'ok', at: 1 }]);
  assert.equal(read.warnings.length, 1);
  assert.match(
    read.warnings[0]!,
    /^f\.meta\.json:keptInstructions\[1\]\.messageId: expected a message id, got .*; that entry is not kept$/,
  );
});
