// The prompt cache made visible (headless Chromium): the chat's context meter tooltip (the last call's
// reads / writes / uncached input, the session's totals and the cost so far, as the host's UsageTally
// computes them from the calls' usage), and the inspector's per-call cost and cache boundary marker
// (built by the host's real inspector model from messages that carry their calls' usage).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, RecordedUsage } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { UsageTally } from '../../src/agent/loop/usageTally';
import { chatState, meter } from './fixtures';
import { WebviewHarness } from './harness';
import { openInspector, startInspectorHarness, type InspectorHarness } from './inspector-harness';

const MODEL = 'claude-sonnet-4-5';
const usage = (read: number, write: number, uncached: number, output: number): RecordedUsage => ({
  inputTokens: uncached,
  cacheReadTokens: read,
  cacheCreationTokens: write,
  outputTokens: output,
  model: MODEL,
});

/** A session of three calls: call 2 reads all of call 1's request, call 3 all of call 2's. */
function session(): Message[] {
  const text = (n: number) => 'word '.repeat(n).trim();
  return [
    { id: 'u1', role: 'user', content: text(400) },
    {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }],
      usage: usage(0, 5_000, 3, 40),
    },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text(800) }] },
    { id: 'a2', role: 'assistant', content: [{ type: 'text', text: text(30) }], usage: usage(5_000, 1_000, 3, 60) },
    { id: 'u2', role: 'user', content: text(50) },
    { id: 'a3', role: 'assistant', content: [{ type: 'text', text: text(20) }], usage: usage(6_000, 120, 3, 25) },
  ];
}

let chat: WebviewHarness;
let inspector: InspectorHarness;
before(async () => {
  chat = await WebviewHarness.start();
  inspector = await startInspectorHarness();
});
after(async () => {
  await chat?.close();
  await inspector?.close();
});

test("the context meter's tooltip shows the last call's cache split, the session's totals and the cost so far", async () => {
  const cache = new UsageTally(session()).meter('5m', MODEL)!;
  const p = await chat.open();
  try {
    await p.deliver({ type: 'state', state: chatState([], { context: { ...meter(12_000, 200_000, 160_000), cache } }) });
    await p.settle();
    const title = await p.page.locator('.meter').getAttribute('title');
    // Sonnet 4.5: $3/M uncached, $0.30/M read, $3.75/M 5-minute write, $15/M output.
    // Last call: 6,000 × 0.3 + 120 × 3.75 + 3 × 3 + 25 × 15 = 2,634 → $0.0026.
    // Session: reads 11,000, writes 6,120, uncached 9, output 125: 3,300 + 22,950 + 27 + 1,875 = 28,152 → $0.0282.
    assert.equal(
      title,
      [
        'Last call: 6,000 read from cache · 120 written to cache · 3 uncached · 25 output ($0.0026)',
        'This session (3 calls): 11,000 read from cache · 6,120 written to cache · 9 uncached · 125 output',
        'Cost so far: $0.0282 (prompt caching 5m)',
      ].join('\n'),
    );
    // A later context message without a call yet (a new chat): no cache tooltip.
    await p.deliver({ type: 'context', context: meter(0, 200_000, 160_000) });
    await p.settle();
    assert.ok(!(await p.page.locator('.meter').getAttribute('title')), 'no tooltip');
    // A malformed cache view is refused by the validator (the meter keeps what it had).
    await p.deliver({ type: 'context', context: { ...meter(5, 200_000, 160_000), cache: { ...cache, last: { read: -1 } } } as never });
    await p.settle();
    assert.equal(await p.page.locator('[role="meter"]').getAttribute('aria-valuenow'), '0');
  } finally {
    await p.page.close();
  }
});

test('the inspector marks the cache boundary under the message the last call read up to, and shows each call’s cost', async () => {
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 200_000,
    tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
  };
  const { page, host } = await openInspector(inspector.browser, inspector.server, ctx, 'light', { width: 1200, height: 800 });
  try {
    await host.showSession({ messages: session(), overhead: { system: 1_200, tools: 900 } });
    const marker = page.locator('[data-marker="cache-boundary"]');
    await marker.waitFor();
    assert.equal(await marker.getAttribute('data-after'), 'r1', "call 3 read call 2's whole request, which ended with r1");
    assert.equal(await marker.getAttribute('data-source'), 'breakpoint');
    assert.match((await marker.getAttribute('title')) ?? '', /read 6,000 tokens from the prompt cache.*its cache breakpoint/);
    const geometry = await page.evaluate(() => {
      const m = document.querySelector('[data-marker="cache-boundary"]')!.getBoundingClientRect();
      const rows = [...document.querySelectorAll('.timeline .row')].map((r) => r.getBoundingClientRect());
      return { marker: m.top, rowBottoms: rows.map((r) => r.bottom), rowTops: rows.map((r) => r.top) };
    });
    // Between row 3 (r1, index 2) and row 4 (a2).
    assert.ok(Math.abs(geometry.marker - geometry.rowTops[3]) <= 3, `marker at ${geometry.marker}, row a2 at ${geometry.rowTops[3]}`);

    // Each assistant row's detail: its call and its cost.
    await page.locator('.timeline .row').nth(5).click();
    await page.locator('[data-stat="call-cost"]').waitFor();
    assert.equal(await page.locator('[data-stat="call-cache-read"]').textContent(), '6,000');
    assert.equal((await page.locator('[data-stat="call-cost"]').textContent())?.trim(), '$0.0026');
    // The same call with its writes recorded as 1-hour writes: priced at 2x input (not 1.25x), and said so.
    const hourly = session();
    hourly[5] = { ...hourly[5], usage: { ...usage(6_000, 120, 3, 25), cacheWrite1hTokens: 120 } };
    await host.showSession({ messages: hourly, overhead: { system: 1_200, tools: 900 } });
    await page.locator('.timeline .row').nth(5).click();
    await page.locator('[data-stat="call-cache-1h"]').waitFor();
    assert.equal((await page.locator('[data-stat="call-cache-1h"]').textContent())?.trim(), '(120 for 1 hour)');
    const hourCost = (6_000 * 0.3 + 120 * 6 + 3 * 3 + 25 * 15) / 1e6;
    assert.equal((await page.locator('[data-stat="call-cost"]').textContent())?.trim(), `$${hourCost.toFixed(4)}`);
    assert.equal(await page.locator('[data-stat="call-cost"]').getAttribute('data-price-source'), 'table');

    // A read that matches no earlier call (after a compaction): placed by estimate, at the top here.
    const compacted = session().slice(3);
    compacted[0] = { ...compacted[0], usage: usage(0, 6_100, 3, 60) };
    compacted[2] = { ...compacted[2], usage: usage(2_000, 200, 3, 25) };
    await host.showSession({
      messages: [{ id: 'sum', role: 'user', content: 'summary', synthetic: 'summary' }, ...compacted],
      overhead: { system: 1_500, tools: 900 },
    });
    await page.locator('[data-marker="cache-boundary"][data-source="estimate"]').waitFor();
    assert.equal(await page.locator('[data-marker="cache-boundary"]').getAttribute('data-after'), '');
  } finally {
    await page.close();
  }
});
