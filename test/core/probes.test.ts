// Probes on a small hand-written session: generation (the four kinds, exact answers taken from the
// tool calls and results, stable ids, bounded), the offline score (normalisation, relative paths,
// ignored messages), the online check's prompt and the scoring of its answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importSession, generateProbes, parseProbeAnswers, probeQuestionsPrompt, scoreProbes, type Message } from '../../src/core/index';
import fc from 'fast-check';
import { normalise } from '../../src/core/probes/normalize';
import { genuinePrompts, lastGenuinePrompt } from '../../src/core/probes/facts';
import { readFileSync } from 'node:fs';

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
  // A fact inside a tool call's input counts as written, not as its JSON escaping (quotes, newlines).
  const error = probes.find((p) => p.kind === 'recall' && p.expected[0].startsWith('TypeError'))!;
  const call: Message = {
    id: 'c',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 't9', name: 'Write', input: { file_path: 'notes.md', content: `Seen:\n${error.expected[0]}\n` } }],
  };
  assert.equal(scoreProbes([error], [call]).recall, 1);
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

test('commands: the working segment (quotes respected), its purpose, the words a summary would quote, a title', async () => {
  const { commandHead, commandTitle, commandVerb, mainSegment, purposeOf } = await import('../../src/core/probes/commands');
  assert.deepEqual(mainSegment("cd /repo && ps -ef | rg 'bun|tsc|vite'"), { segment: 'ps -ef', purpose: 'inspect' });
  assert.deepEqual(mainSegment('cd /repo && CI=1 pnpm test parser -- --watch=false 2>&1 | tail -5'), {
    segment: 'CI=1 pnpm test parser -- --watch=false 2>&1',
    purpose: 'test',
  });
  assert.equal(commandHead('CI=1 pnpm test parser -- --watch=false 2>&1'), 'pnpm test parser');
  assert.equal(purposeOf('npx tsc -p tsconfig.json --noEmit'), 'typecheck');
  assert.equal(purposeOf('gh issue close 1452 --reason completed'), 'change');
  assert.equal(commandHead('gh issue close 1452 --reason completed'), 'gh issue close 1452');
  assert.equal(commandVerb('gh issue close 1452 --reason completed'), 'gh issue close');
  assert.equal(purposeOf('workmux send worker-a "stop"'), 'change', "another tool's mutating subcommand");
  assert.equal(purposeOf('workmux send --help'), 'inspect', 'asking for help changes nothing');
  assert.equal(commandHead('workmux run -b fix-login -- codex'), 'workmux run -b fix-login');
  assert.equal(commandVerb('git -C /tmp/wt diff --stat'), 'git diff');
  assert.equal(commandTitle('gh pr create --title "feat: login by email" --body x'), 'feat: login by email');
  assert.equal(commandTitle('bd create --title="schema: remove workers"'), 'schema: remove workers');
});

test('generation: a Codex patch that deletes a file, a conditional is no decision, a PR title is asked for', () => {
  const patch =
    '*** Begin Patch\n*** Delete File: src/old.ts\n*** Add File: src/new.ts\n+export const answer = computeTheAnswer();\n*** End Patch';
  const archived: Message[] = [
    { id: 'u1', role: 'user', content: 'If we use redis here it gets slow. Never commit the .env file.' },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'c1', name: 'apply_patch', input: { input: patch } },
        { type: 'tool_use', id: 'c2', name: 'exec_command', input: { cmd: 'gh pr create --title "Replace the old module" --body done' } },
      ],
    },
    {
      id: 'r1',
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'Success' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'https://github.com/o/r/pull/7\nProcess exited with code 0' },
      ],
    },
  ];
  const probes = generateProbes({ archived });
  const file = (path: string) => probes.find((p) => p.kind === 'artifact' && p.expected.includes(path));
  assert.match(file('src/old.ts')?.question ?? '', /delete/);
  assert.match(file('src/new.ts')?.question ?? '', /create \(the change that wrote "export const answer = computeTheAnswer\(\);"\)/);
  assert.ok(probes.some((p) => p.expected.includes('Replace the old module')));
  const decisions = probes.filter((p) => p.kind === 'decision').map((p) => p.expected[0]);
  assert.deepEqual(decisions, ['Never commit the .env file']);
});

test('scorePlan: the probes of what the plan archives, on the request it leaves; a summary slot counts once written', async () => {
  const { CharEstimateTokenizer, DEFAULT_PLAN_CONTEXT, MemoizedMessageCounter, planWith, scorePlan } = await import('../../src/core/index');
  const { syntheticSession } = await import('../helpers/synthetic');
  const history = syntheticSession({ messages: 600, seed: 7 });
  const base = { ...DEFAULT_PLAN_CONTEXT, contextWindow: 30_000, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
  const withLedger = planWith('recursive-summarization', history, {}, { ...base, ledger: true });
  const bare = planWith('recursive-summarization', history, {}, { ...base, ledger: false });
  assert.equal(withLedger.needsSummary, true);
  const archivedIds = new Set(withLedger.archived.map((e) => e.id));
  const preview = scorePlan(history, withLedger);
  assert.equal(preview.summaryCounted, false, 'no summary text in a preview');
  assert.ok(preview.probes.length >= 4 && preview.probes.every((p) => p.sources.every((id) => archivedIds.has(id))));
  // The ledger the slot carries names the files and commands: the artifact probes are answerable without a summary.
  assert.equal(preview.score.recallByKind.artifact, 1);
  // Without the ledger the pending slot says nothing; a summary that names the missed facts answers them.
  const unledgered = scorePlan(history, bare);
  const missed = unledgered.score.probes.filter((p) => !p.answerable);
  assert.ok(missed.length > 0 && unledgered.score.recallByKind.artifact! < 1, 'without the ledger, artifacts are lost');
  const written = scorePlan(history, bare, { summary: `Earlier: ${missed.map((p) => p.expected[0]).join('; ')}.` });
  assert.equal(written.summaryCounted, true);
  assert.deepEqual(
    written.probes.map((p) => p.id),
    unledgered.probes.map((p) => p.id),
  );
  assert.equal(written.score.recall, 1, 'a summary naming every missed fact answers every probe');
});

// generateProbes normalises the later conversation message by message (in slices) and joins the pieces
// with a space: the same text as normalising the messages joined by newlines.
test('normalising texts one by one and joining them with a space equals normalising them joined', () => {
  const piece = fc.string({
    unit: fc.constantFrom('a', 'B', ' ', '\n', '\t', '"', "'", '`', '\u2019', 'İ', 'x', '.', '\u00a0'),
    maxLength: 12,
  });
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }), (texts) => {
      const oneByOne = texts
        .map(normalise)
        .filter((t) => t !== '')
        .join(' ');
      assert.equal(oneByOne, normalise(texts.join('\n')));
    }),
    { numRuns: 500 },
  );
});

test('the last genuine prompt searched from the end is the last of the genuine prompts, at every point of the real sessions', () => {
  for (const name of ['claude-code-cipher-box-c.jsonl', 'codex-agentv-a.jsonl']) {
    const file = `test/fixtures/real-sessions/${name}`;
    const { messages } = importSession(readFileSync(file, 'utf8'), file);
    for (let n = 0; n <= messages.length; n += 7) {
      const prefix = messages.slice(0, n);
      assert.equal(lastGenuinePrompt(prefix), genuinePrompts(prefix).at(-1), `${name}, first ${n} messages`);
    }
  }
});
