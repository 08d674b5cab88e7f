// The Claude Code import as steps (steps.ts) never does a whole-file pass between two yields: the streamed
// import on the extension host gives the event loop a turn between steps, so one step that walks every line
// (the branch resolution, the result relinking, the final assembly) is one long block on a large session.
// Measured here without a clock: the reads of the lines' fields between two yields, on a session large
// enough that a whole pass would be far over the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeCodeSteps } from '../../../src/core/importers/claudeCode';
import type { Json, JsonLine } from '../../../src/core/importers/json';
import { LINES_PER_STEP, LOOP_ITEMS_PER_STEP, runSteps } from '../../../src/core/importers/steps';

/** A chain of `turns` prompt / tool call / tool result / answer lines, with a result written before its call once. */
function session(turns: number): Json[] {
  const lines: Json[] = [];
  let parent: string | null = null;
  const push = (type: 'user' | 'assistant', message: Json): void => {
    const uuid = `u${lines.length}`;
    lines.push({
      type,
      uuid,
      parentUuid: parent,
      isSidechain: false,
      timestamp: new Date(1_700_000_000_000 + lines.length * 1000).toISOString(),
      message,
    });
    parent = uuid;
  };
  for (let t = 0; t < turns; t++) {
    push('user', { role: 'user', content: `prompt ${t}` });
    push('assistant', {
      id: `msg_${t}_a`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${t}`, name: 'Read', input: { file_path: `/w/f${t}.ts` } }],
    });
    push('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: `contents of f${t}` }] });
    push('assistant', { id: `msg_${t}_b`, role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] });
  }
  // One result written before its call (Claude Code does this): the relinking has work to do.
  const i = lines.length - 7;
  [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]];
  return lines;
}

/** The lines, each value wrapped so that every field read is counted. */
function counted(values: Json[]): { lines: JsonLine[]; reads: () => number } {
  let reads = 0;
  const wrap = (v: Json): Json =>
    new Proxy(v, {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  return { lines: values.map((v, i) => ({ line: i + 1, value: wrap(v) })), reads: () => reads };
}

test('the Claude Code import yields at least every few thousand line reads, whatever the session size', () => {
  const values = session(12_000); // 48,000 lines
  const { lines, reads } = counted(values);
  const steps = claudeCodeSteps(lines, 'big.jsonl');
  let most = 0;
  let count = 0;
  for (;;) {
    const before = reads();
    const r = steps.next();
    most = Math.max(most, reads() - before);
    count++;
    if (r.done) {
      assert.equal(r.value.messages.length, 48_000, 'every line is a message');
      break;
    }
  }
  // A whole pass reads at least one field of every line: 48,000 reads. A step reads a bounded slice:
  // up to LOOP_ITEMS_PER_STEP lines of a cheap pass or LINES_PER_STEP lines parsed, a few dozen reads each.
  const bound = Math.max(LOOP_ITEMS_PER_STEP * 12, LINES_PER_STEP * 60);
  assert.ok(most <= bound, `a step read ${most} fields (bound ${bound}) in ${count} steps`);
  assert.ok(count > (5 * lines.length) / LOOP_ITEMS_PER_STEP, `${count} steps`);
});

test('sliced or straight through, the import is the same', () => {
  const values = session(300);
  const once = runSteps(
    claudeCodeSteps(
      values.map((v, i) => ({ line: i + 1, value: v })),
      'a.jsonl',
    ),
  );
  assert.ok(
    once.warnings.some((w) => w.includes('tool result written before the line it answers')),
    once.warnings.join('\n'),
  );
  const steps = claudeCodeSteps(
    values.map((v, i) => ({ line: i + 1, value: v })),
    'a.jsonl',
  );
  let r = steps.next();
  while (!r.done) r = steps.next();
  assert.deepEqual(r.value, once);
});
