// Probes on a small hand-written session: generation (the four kinds, exact answers taken from the
// tool calls and results, stable ids, bounded), the offline score (normalisation, relative paths,
// ignored messages), the online check's prompt and the scoring of its answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateProbes, parseProbeAnswers, probeQuestionsPrompt, scoreProbes, type Message } from '../../src/core/index';

const ROOT = '/home/me/project';

function session(): Message[] {
  return [
    { id: 'u1', role: 'user', content: "Fix the failing parser test. Don't touch the legacy folder; use pnpm instead of npm." },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will run the tests first.' },
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'pnpm test parser' } },
      ],
    },
    {
      id: 'r1',
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          is_error: true,
          content: 'FAIL src/parser.test.ts\nTypeError: cannot read properties of undefined (reading "tokens")\n[Exit code 1]',
        },
      ],
    },
    {
      id: 'a2',
      role: 'assistant',
      content: [
        { type: 'text', text: 'The parser reads `lexerState` before init. The suite took 420 ms.' },
        {
          type: 'tool_use',
          id: 't2',
          name: 'Edit',
          input: { file_path: `${ROOT}/src/parser.ts`, old_string: 'x', new_string: 'const state = initLexerState(input);' },
        },
      ],
    },
    { id: 'r2', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'ok' }] },
    {
      id: 'a3',
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 't3',
          name: 'Write',
          input: { file_path: `${ROOT}/src/lexerState.ts`, content: 'export function initLexerState(input: string) {}' },
        },
      ],
    },
    { id: 'r3', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't3', content: 'created' }] },
    { id: 'a4', role: 'assistant', content: 'Next I will rerun pnpm test parser to confirm the fix.' },
  ];
}

test('generation: all four kinds, exact answers from the calls, sources, bounded, deterministic', () => {
  const archived = session();
  const later: Message[] = [{ id: 'u2', role: 'user', content: 'Did src/lexerState.ts get a test?' }];
  const probes = generateProbes({ archived, later });
  const kinds = new Set(probes.map((p) => p.kind));
  assert.deepEqual([...kinds].sort(), ['artifact', 'continuation', 'decision', 'recall']);
  const created = probes.find((p) => p.kind === 'artifact' && p.expected.includes(`${ROOT}/src/lexerState.ts`));
  assert.ok(created, 'the created file is asked about');
  assert.deepEqual(created.sources, ['a3']);
  assert.equal(created.referencedLater, true, 'the later prompt names it (relative)');
  assert.ok(probes.some((p) => p.kind === 'artifact' && p.expected.includes('pnpm test parser')));
  assert.ok(probes.some((p) => p.kind === 'recall' && p.expected.some((e) => e.includes('cannot read properties of undefined'))));
  assert.ok(probes.some((p) => p.kind === 'recall' && p.expected.includes('lexerState')));
  assert.ok(probes.some((p) => p.kind === 'recall' && p.expected.includes('420 ms')));
  assert.ok(probes.some((p) => p.kind === 'decision' && p.expected.some((e) => /don't touch the legacy folder/i.test(e))));
  assert.ok(probes.some((p) => p.kind === 'continuation' && p.expected.some((e) => e.startsWith('Fix the failing parser test'))));
  for (const p of probes)
    for (const e of p.expected) assert.ok(!p.question.toLowerCase().includes(e.toLowerCase()), `${p.id} asks its answer`);
  assert.deepEqual(generateProbes({ archived: session(), later }), probes, 'same input, same probes');
  assert.equal(new Set(probes.map((p) => p.id)).size, probes.length, 'ids unique');
  assert.equal(generateProbes({ archived, later }, { max: 5 }).length, 5);
  assert.equal(generateProbes({ archived: [] }).length, 0);
});

test('score: normalised, relative paths count, ignored messages do not', () => {
  const probes = generateProbes({ archived: session() });
  const file = probes.find((p) => p.expected.includes(`${ROOT}/src/lexerState.ts`));
  assert.ok(file);
  const summary: Message = {
    id: 's',
    role: 'user',
    synthetic: 'summary',
    content: 'Created `SRC/LexerState.ts`;  ran "PNPM   test parser".',
  };
  const score = scoreProbes(probes, [summary]);
  const byId = new Map(score.probes.map((p) => [p.id, p]));
  assert.equal(byId.get(file.id)?.answerable, true);
  assert.ok(score.recall !== null && score.recall > 0 && score.recall < 1);
  const ignored = scoreProbes(probes, [summary], { ignore: (m) => m.synthetic === 'summary' });
  assert.equal(ignored.recall, 0);
  const all = scoreProbes(probes, session());
  assert.equal(all.recall, 1, 'the archived messages answer every probe made from them');
  assert.deepEqual(scoreProbes([], [summary]).recall, null);
});

test('online check: prompt by id without answers; answers parsed tolerantly and scored', () => {
  const probes = generateProbes({ archived: session() });
  const prompt = probeQuestionsPrompt(probes);
  for (const p of probes) assert.ok(prompt.includes(`${p.id}: ${p.question}`));
  assert.match(prompt, /"answers"/);
  const exact = probes.find((p) => p.exact)!;
  const loose = probes.find((p) => !p.exact)!;
  const other = probes.find((p) => p.exact && p.id !== exact.id)!;
  const text = `Sure:\n\`\`\`json\n${JSON.stringify({
    answers: [
      { id: exact.id, answer: `It was ${exact.expected[0].replace(`${ROOT}/`, '')}` },
      { id: loose.id, answer: 'something else' },
      { id: other.id, answer: 'unknown' },
    ],
  })}\n\`\`\`\nDone.`;
  const verdicts = new Map(parseProbeAnswers(text, probes).map((a) => [a.id, a.verdict]));
  assert.equal(verdicts.get(exact.id), 'correct');
  assert.equal(verdicts.get(loose.id), 'uncertain');
  assert.equal(verdicts.get(other.id), 'wrong');
  const missing = probes.find((p) => ![exact.id, loose.id, other.id].includes(p.id))!;
  assert.equal(verdicts.get(missing.id), 'unanswered');
  assert.ok(parseProbeAnswers('no json here', probes).every((a) => a.verdict === 'unanswered'));
});
