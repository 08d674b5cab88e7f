// The probe request's pieces without a session: the questions as the last user turn (joined to a
// trailing user message, a dangling tool_use dropped), the probes model of a family, the estimate and
// the reply checks; and the loopback's answers (probeAnswers.ts): the fact is in the answer exactly
// when the context holds it on a line the question points to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { priceLookup, probeQuestionsPrompt, type ApiMessage, type Probe } from '../../src/core';
import {
  answerIds,
  defaultProbeModel,
  estimateProbeCost,
  probeModelFor,
  probeRequestMessages,
  runProbeRequest,
  scoreReply,
} from '../../src/agent/loop/probeRunner';
import { ChatLog } from '../../src/agent/projections/chatLog';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import { probePrompt, probeQuestions, probeReplyText } from '../loopback/probeAnswers';

const probe = (id: string, question: string, expected: string[], exact = true): Probe => ({
  id,
  kind: 'recall',
  question,
  expected,
  exact,
  sources: ['a_1'],
  referencedLater: false,
});
const PROBES = [
  probe('p-recall-aaa', 'What figure did the benchmark of the old parser take per run?', ['1834 ms']),
  probe('p-artifact-bbb', 'Which file did the session edit? Give its path.', ['src/parser.ts']),
];

test('the questions are the last user turn: a new one after a reply, joined to trailing tool results, a dangling tool_use dropped', () => {
  const prompt = 'QUESTIONS';
  const reply: ApiMessage[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
  ];
  assert.deepEqual(probeRequestMessages(reply, prompt).at(-1), { role: 'user', content: [{ type: 'text', text: prompt }] });
  const results: ApiMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
  ];
  const joined = probeRequestMessages(results, prompt);
  assert.equal(joined.length, 3);
  assert.deepEqual(joined[2]!.content, [
    { type: 'tool_result', tool_use_id: 't1', content: 'x' },
    { type: 'text', text: prompt },
  ]);
  const dangling: ApiMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 't2', name: 'read_file', input: {} },
      ],
    },
  ];
  const fixed = probeRequestMessages(dangling, prompt);
  assert.deepEqual(fixed[1]!.content, [{ type: 'text', text: 'Reading.' }]);
  assert.equal(fixed.length, 3);
  assert.equal(reply.length, 2, 'the context is not changed');
});

test('the probes model: the setting, else the cheapest of the family; the estimate uses its price', () => {
  assert.equal(defaultProbeModel('claude-opus-4-5'), 'claude-haiku-4-5');
  assert.equal(defaultProbeModel('gpt-5.1-codex'), 'gpt-5-mini');
  assert.equal(defaultProbeModel('o3'), 'gpt-5-mini');
  assert.equal(probeModelFor('  claude-3-5-haiku-latest ', 'claude-opus-4-5'), 'claude-3-5-haiku-latest');
  assert.equal(probeModelFor('', 'gpt-5'), 'gpt-5-mini');
  for (const m of ['claude-haiku-4-5', 'gpt-5-mini']) assert.equal(priceLookup(m).source, 'table', `${m} is priced by the table`);
  const p = priceLookup('claude-haiku-4-5').price;
  assert.equal(estimateProbeCost('claude-haiku-4-5', 10_000, 20), (10_000 * p.input + 20 * 40 * p.output) / 1e6);
});

test('the reply: JSON found in prose or a fence, or said to be missing; ids not asked are named', () => {
  assert.deepEqual(answerIds('Sure!\n```json\n{"answers":[{"id":"p-1","answer":"x"}]}\n```\nDone {not json}'), ['p-1']);
  assert.equal(answerIds('no braces here'), null);
  assert.equal(answerIds('{"other": 1}'), null);
  const none = scoreReply('I cannot help.', PROBES, null);
  assert.equal(none.ok, false);
  assert.match(!none.ok ? none.error : '', /held no JSON .*"I cannot help\."/);
  const stranger = scoreReply('{"answers":[{"id":"p-x","answer":"1834 ms"}]}', PROBES, null);
  assert.match(!stranger.ok ? stranger.error : '', /only ids that were not asked \(p-x\)/);
  const some = scoreReply('{"answers":[{"id":"p-recall-aaa","answer":"It took 1834 ms."},{"id":"p-y","answer":""}]}', PROBES, 0.001);
  assert.ok(some.ok);
  assert.deepEqual(
    some.answers.map((a) => a.verdict),
    ['correct', 'unanswered'],
  );
  assert.deepEqual(some.notes, ['Ignored 1 answer(s) to ids that were not asked: p-y.']);
});

function body(context: string[]): { model: string; max_tokens: number; messages: unknown[] } {
  const messages: unknown[] = [];
  for (const text of context)
    messages.push({ role: 'user', content: text }, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
  messages.push({ role: 'user', content: [{ type: 'text', text: probeQuestionsPrompt(PROBES) }] });
  return { model: 'm', max_tokens: 100, messages };
}

test('loopback: a probe request is recognised and answered from its own text, the fact present exactly when the context has it', () => {
  const withFacts = body(['The benchmark of the old parser took 1834 ms per run.', 'edit_file path: src/parser.ts']);
  const prompt = probePrompt(withFacts as never)!;
  assert.ok(prompt);
  assert.deepEqual(
    probeQuestions(prompt).map((q) => q.id),
    ['p-recall-aaa', 'p-artifact-bbb'],
  );
  const answered = JSON.parse(/```json\n(.*)\n```/s.exec(probeReplyText(withFacts as never, prompt))![1]!) as {
    answers: Array<{ id: string; answer: string }>;
  };
  assert.match(answered.answers[0]!.answer, /1834 ms/);
  assert.match(answered.answers[1]!.answer, /src\/parser\.ts/);
  const without = body(['We talked about the weather.']);
  const lost = probeReplyText(without as never, probePrompt(without as never)!);
  assert.doesNotMatch(lost, /1834|parser\.ts/);
  assert.equal(
    probePrompt({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'What figure? {"answers"' }] } as never),
    undefined,
  );
});

test('the request goes through the real SDK to the loopback, and an unreachable API is a clear failure', async () => {
  const server = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  try {
    const client = new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 });
    const context: ApiMessage[] = [
      { role: 'user', content: 'The benchmark of the old parser took 1834 ms per run.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
    ];
    const run = await runProbeRequest({ client, model: 'claude-haiku-4-5', system: 'S', tools: [], context, probes: PROBES });
    assert.ok(run.ok);
    assert.equal(run.answers.find((a) => a.id === 'p-recall-aaa')?.verdict, 'correct');
    assert.notEqual(run.answers.find((a) => a.id === 'p-artifact-bbb')?.verdict, 'correct');
    assert.ok(run.costUSD !== null && run.costUSD > 0);
    assert.equal(server.requests.at(-1)!.body.tool_choice, undefined, 'no tools, no tool_choice');
  } finally {
    await server.close();
  }
  const client = new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 });
  const down = await runProbeRequest({ client, model: 'm', system: 'S', tools: [], context: [], probes: PROBES });
  assert.equal(down.ok, false);
  assert.match(!down.ok ? down.error : '', /^The probe request failed: Could not reach the API/);
});

test('a check still running when the window reloaded is shown as interrupted, not running forever', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-probe-chatlog-'));
  try {
    const file = join(dir, 's.chat.json');
    const byKind = {
      artifact: { correct: 0, total: 1 },
      recall: { correct: 0, total: 0 },
      decision: { correct: 0, total: 0 },
      continuation: { correct: 0, total: 0 },
    };
    const running = {
      kind: 'probes',
      id: 'probes_1',
      compactionId: 'cmp_1',
      model: 'm',
      status: 'running',
      correct: 0,
      total: 1,
      byKind,
      missed: [],
    };
    writeFileSync(file, JSON.stringify([running, { ...running, id: 'probes_2', status: 'done' }]));
    const log = ChatLog.load(file);
    assert.deepEqual(
      log.all().map((i) => (i.kind === 'probes' ? [i.status, i.error] : [])),
      [
        ['failed', 'The check was interrupted (reload).'],
        ['done', undefined],
      ],
    );
    log.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
