// Server-side context management in the inspector (headless Chromium): after each call, the row of the
// reply shows what the server did (tool results it cleared, its compaction, a failed compaction), the
// compaction block reads as a summary of the server's, and previewing a server strategy shows the
// engine's emulation of the server (its notes say so) on the real plan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

const ARTIFACTS = resolve(import.meta.dirname ?? __dirname, '../../test-artifacts');

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

const ctx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 60_000,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
});

/** A prompt, five read_file exchanges (the later replies carrying what the server cleared), a compaction, a failed one. */
function session(): Message[] {
  const out: Message[] = [{ id: 'u0', role: 'user', content: 'Read the five files, then summarize.' }];
  for (let i = 0; i < 5; i++) {
    out.push({
      id: `a${i}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }],
      ...(i >= 3
        ? { serverContext: { strategy: 'server-clear-tool-uses' as const, clearedToolUses: i - 1, clearedInputTokens: 6_200 * (i - 1) } }
        : {}),
    });
    out.push({
      id: `r${i}`,
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `// f${i}\n${'const x = 1;\n'.repeat(300)}` }],
    });
  }
  out.push({
    id: 'ac',
    role: 'assistant',
    content: [
      { type: 'compaction', content: 'The user asked for five files to be read; all five define x.' } as never,
      { type: 'text', text: 'All read.' },
    ],
    serverContext: { strategy: 'server-compact', compaction: 'applied' },
  });
  out.push({ id: 'u1', role: 'user', content: 'And now?' });
  out.push({ id: 'af', role: 'assistant', content: 'Nothing more.', serverContext: { strategy: 'server-compact', compaction: 'failed' } });
  return out;
}

test('rows show what the server did after each call; previewing a server strategy shows its emulation', async () => {
  const messages = session();
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx(), 'dark', { width: 1280, height: 900 });
  await host.showSession({ messages, strategyParams: { 'server-clear-tool-uses': { triggerTokens: 1_000, keepToolUses: 1 } } });

  const cleared = await page.waitForSelector('[role=option][data-id="a4"] [data-marker=server-cleared]');
  assert.equal((await cleared.textContent())?.trim(), 'server cleared 3 tool results (18,600 tok)');
  assert.match((await cleared.getAttribute('title')) ?? '', /the session keeps them/);
  assert.equal(
    (await page.textContent('[role=option][data-id="a3"] [data-marker=server-cleared]'))?.trim(),
    'server cleared 2 tool results (12,400 tok)',
  );
  assert.equal(await page.$('[role=option][data-id="a2"] .badge-server'), null, 'no marker where the server did nothing');
  assert.equal((await page.textContent('[role=option][data-id="ac"] [data-marker=server-applied]'))?.trim(), 'server compacted');
  assert.match(
    (await page.textContent('[role=option][data-id="ac"] .preview')) ?? '',
    /\[server compaction\] The user asked for five files/,
  );
  assert.equal((await page.textContent('[role=option][data-id="af"] [data-marker=server-failed]'))?.trim(), 'server compaction failed');

  // Preview the server's clearing: the engine's emulation, drawn like any plan.
  const since = host.posted.length;
  await page.click('[data-strategy="server-clear-tool-uses"] [data-action=preview]');
  const post = await host.waitForPost((m) => m.type === 'preview' && m.strategy === 'server-clear-tool-uses', 5_000, since);
  const requestId = (post as { requestId: number }).requestId;
  await page.waitForSelector(`.plan-summary[data-request-id="${requestId}"] [data-stat=notes]`);
  const notes = (await page.textContent('[data-stat=notes]')) ?? '';
  assert.match(notes, /emulation of the server/);
  assert.match(notes, /the server would clear the 4 oldest tool results/);
  const plan = host.plans.get(requestId)!;
  assert.deepEqual(
    plan.truncated.map((t) => t.id),
    ['r0', 'r1', 'r2', 'r3'],
  );
  assert.equal(plan.archived.length, 0);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-server-context-dark.png') });
  assert.deepEqual(errors, []);
  await page.close();
});
