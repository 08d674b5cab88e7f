// Issue 23 in the inspector (headless Chromium): the standing instructions and the task list as their
// own usage segments with their token cost (each instruction source named), the line that says what no
// compaction removes and what it costs per request, on the usage bar and on a preview; a plan that
// cannot get under the limit because of them says so; and an imported Codex rollout's AGENTS.md
// injection shown as an instructions row, not a prompt.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { importSession } from '../../src/core/importers';
import { textOf } from '../../src/core/conversation/conversation';
import type { StandingContext } from '../../src/core';
import { standingView } from '../../src/inspector/standingView';
import { syntheticSession } from '../helpers/synthetic';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';
import { fmt, previewAndWait } from './inspector-support';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

const ctxOf = (contextWindow: number): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
});

function standing(agentsChars: number): StandingContext {
  const text = 'Use tabs. Run make check before saying done.\n'.repeat(Math.ceil(agentsChars / 45)).slice(0, agentsChars);
  return {
    instructions: [
      { name: 'AGENTS.md', kind: 'file', path: 'AGENTS.md', text, truncated: false, originalChars: text.length, sent: true },
      { name: 'CLAUDE.md', kind: 'file', path: 'CLAUDE.md', text: '', truncated: false, originalChars: 900, sent: false },
    ],
    todo: [
      { id: 'p1', text: 'Fix the parser', status: 'done' },
      { id: 'p2', text: 'Port the lexer to tabs', status: 'in_progress' },
    ],
  };
}

test('the usage bar shows the instructions and the task list as segments with their cost, and what stays outside compaction', async () => {
  const view = standingView(standing(4_000), new CharEstimateTokenizer());
  const ctx = { ...ctxOf(60_000), overheadTokens: 2_400 + 1_800 + view.instructionTokens + view.todo.tokens };
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx);
  await host.showSession({ messages: syntheticSession({ messages: 60, seed: 3 }), standing: view });
  await page.waitForSelector('.usage-seg[data-segment="instructions"]');
  assert.equal(await page.getAttribute('[data-segment="instructions"]', 'title'), `Instructions: ${fmt(view.instructionTokens)} tokens`);
  assert.equal(await page.getAttribute('[data-segment="todo"]', 'title'), `Task list: ${fmt(view.todo.tokens)} tokens`);
  // Each source named with its cost; a listed-only file says it is not sent.
  const agents = (await page.textContent('[data-standing="instructions"][data-name="AGENTS.md"]')) ?? '';
  assert.ok(agents.includes(`${fmt(view.instructions[0].tokens)} tokens`), agents);
  assert.match((await page.textContent('[data-name="CLAUDE.md"]')) ?? '', /listed, not sent/);
  assert.match((await page.textContent('[data-standing="todo"]')) ?? '', /Task list \(1\/2 done\)/);
  const outside = host.session.usage.outside!;
  assert.equal(outside.total, 2_400 + 1_800 + view.instructionTokens + view.todo.tokens);
  assert.equal(await page.textContent('.usage [data-outside="total"]'), fmt(outside.total));
  assert.match(
    (await page.textContent('.usage [data-stat="outside-compaction"]')) ?? '',
    /instructions [\d,]+ · task list [\d,]+ · pins 0/,
  );
  // The preview card says the same for the request after the plan.
  await previewAndWait(page, host, 'sliding-window');
  assert.equal(await page.textContent('.plan-summary [data-outside="total"]'), fmt(outside.total));
  assert.equal(await page.locator('[data-stat="cannot-fit"]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a plan that cannot get under the limit because of what stays outside compaction says so', async () => {
  // The limit is a 12,000-token window less the answer's room; system + tools (4,200) and ~6,000 tokens of AGENTS.md exceed it.
  const view = standingView(standing(24_000), new CharEstimateTokenizer());
  // As the host wires the pipeline: what every request carries besides the messages counts in the plan's request.
  const ctx = { ...ctxOf(12_000), overheadTokens: 2_400 + 1_800 + view.instructionTokens + view.todo.tokens };
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx);
  await host.showSession({ messages: syntheticSession({ messages: 80, seed: 5 }), standing: view });
  await previewAndWait(page, host, 'sliding-window');
  const alert = (await page.textContent('[data-stat="cannot-fit"]')) ?? '';
  assert.match(alert, new RegExp(`cannot get under the limit of ${fmt(12_000 - ctx.maxOutputTokens)} tokens`));
  assert.ok(alert.includes(fmt(host.session.usage.outside!.total)));
  assert.match((await page.textContent('[data-stat="notes"]')) ?? '', /cannot fit: what no compaction removes/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an imported Codex rollout's AGENTS.md injection is an instructions row, not a user prompt", async () => {
  const file = 'codex-agentv-a.jsonl';
  const raw = readFileSync(join(ROOT, 'test/fixtures/real-sessions', file), 'utf8');
  const messages = importSession(raw, file).messages;
  const injected = messages.filter((m) => textOf(m).trimStart().startsWith('# AGENTS.md instructions for'));
  assert.ok(injected.length > 0);
  const { page, host, errors } = await openInspector(h.browser, h.server, ctxOf(400_000));
  await host.showSession({ messages, source: file, readOnly: true });
  for (const m of injected) {
    const row = host.session.rows.find((r) => r.id === m.id)!;
    assert.equal(row.kind, 'instructions');
  }
  // The timeline draws the injection as an instructions row (its own kind), not a user prompt.
  const first = injected[0];
  const row = page.locator(`.timeline [data-id="${first.id}"]`);
  await row.waitFor();
  assert.equal(await row.getAttribute('data-kind'), 'instructions');
  assert.match((await row.getAttribute('aria-label')) ?? '', /instructions/);
  assert.deepEqual(errors, []);
  await page.close();
});
