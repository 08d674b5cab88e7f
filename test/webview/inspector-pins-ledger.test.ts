// Pins, the artifact ledger and the loss report in the inspector (headless Chromium), on plans the
// real engine computes (planWith with the pins and the ledger on, planToView as the extension sends
// them): the pin row action (keyboard), the marker on rows, the pinned message kept by a preview, the
// plan's pinned / lost counts, the "What is lost" section and the ledger card on a summary row.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import type { InspectorToHost } from '../../src/protocol';
import { syntheticSession } from '../helpers/synthetic';
import { formatTokens } from '../../webview/shared/format';
import { openInspector, startInspectorHarness, type InspectorHarness, type InspectorHost } from './inspector-harness';

const ARTIFACTS = resolve(import.meta.dirname ?? __dirname, '../../test-artifacts');

let h: InspectorHarness;
before(async () => {
  h = await startInspectorHarness();
});
after(async () => {
  await h?.close();
});

type MutableCtx = PlanContext & { pinnedIds?: ReadonlySet<string> };

function context(): MutableCtx {
  return { ...DEFAULT_PLAN_CONTEXT, contextWindow: 60_000, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), ledger: true };
}

/** The extension's pin handling: the session's pins change and the panel gets the session again. */
function servePins(host: InspectorHost, ctx: MutableCtx, messages: Message[]): void {
  const pins = new Set<string>();
  const loop = async (since: number): Promise<void> => {
    const m = await host
      .waitForPost((p): p is Extract<InspectorToHost, { type: 'pin' | 'unpin' }> => p.type === 'pin' || p.type === 'unpin', 60_000, since)
      .catch(() => null);
    if (!m) return;
    if (m.type === 'pin') pins.add(m.id);
    else pins.delete(m.id);
    ctx.pinnedIds = new Set(pins);
    await host.showSession({ messages });
    await loop(host.posted.length);
  };
  void loop(host.posted.length);
}

async function previewAndWait(page: import('playwright-core').Page, host: InspectorHost, strategy: string): Promise<void> {
  const since = host.posted.length;
  await page.click(`[data-strategy="${strategy}"] [data-action=preview]`);
  const post = await host.waitForPost((m) => m.type === 'preview' && m.strategy === strategy, 5_000, since);
  await page.waitForSelector(`.plan-summary[data-request-id="${(post as { requestId: number }).requestId}"] [data-stat=tokens-after]`);
}

test('pin a prompt from its row actions (keyboard), see the marker, preview a strategy: the pin is kept and counted; unpin anywhere', async () => {
  const ctx = context();
  const messages = syntheticSession({ messages: 120, seed: 7 });
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx, 'dark', { width: 1280, height: 860 });
  await host.showSession({ messages });
  servePins(host, ctx, messages);
  const first = messages[0]!;
  // Keyboard: focus the timeline, Enter opens row 0's detail, Tab reaches its Pin button, Enter pins.
  await page.focus('.timeline');
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  const pinButton = page.getByRole('button', { name: 'Pin message #0 · user' });
  await pinButton.waitFor();
  assert.equal(await pinButton.getAttribute('aria-pressed'), 'false');
  await pinButton.focus();
  await page.keyboard.press('Enter');
  await host.waitForPost((m) => m.type === 'pin' && m.id === first.id, 5_000, 0);
  await page.waitForSelector(`[role=option][data-id="${first.id}"].pinned [data-marker=pinned]`);
  assert.match((await page.getAttribute(`[data-id="${first.id}"]`, 'aria-label')) ?? '', /^#0, user, pinned, \d+ tok,/);
  assert.equal(await page.getByRole('button', { name: 'Unpin message #0 · user' }).getAttribute('aria-pressed'), 'true');

  await previewAndWait(page, host, 'sliding-window');
  const plan = [...host.plans.values()].at(-1)!;
  assert.ok(plan.pinned?.includes(first.id), 'the engine kept the pin');
  assert.ok(!plan.archived.some((e) => e.id === first.id), 'the pinned prompt is not archived');
  assert.ok(plan.archived.length > 0, 'the plan archives something');
  const pinnedStat = (await page.textContent('[data-stat=pinned]'))?.trim();
  assert.equal(pinnedStat, `${plan.pinned!.length} · ${formatTokens(plan.pinnedTokens!)}`);
  assert.ok(await page.$(`[data-id="${first.id}"].kept`), 'the timeline shows it kept in the preview');
  assert.ok(!(await page.$(`[data-id="${first.id}"].archived`)));

  await page.screenshot({ path: join(mkdirp(ARTIFACTS), 'inspector-pins-dark.png') });

  // Unpin from the same row action: the marker goes, and the showing preview re-plans without the pin.
  const before = host.posted.filter((m) => m.type === 'preview').length;
  await page.getByRole('button', { name: 'Unpin message #0 · user' }).click();
  await host.waitForPost((m) => m.type === 'unpin' && m.id === first.id, 5_000, 0);
  await page.waitForSelector(`[role=option][data-id="${first.id}"]:not(.pinned)`);
  await host.waitForPost(() => host.posted.filter((m) => m.type === 'preview').length > before, 5_000, 0);
  assert.deepEqual(errors, []);
  assert.deepEqual(host.malformed, []);
  await page.close();
});

test('the plan summary counts what is lost, "What is lost" lists it, and the carried ledger opens as a card', async () => {
  const ctx = context();
  const messages = syntheticSession({ messages: 120, seed: 3 });
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx, 'light', { width: 1280, height: 900 });
  await host.showSession({ messages });
  await previewAndWait(page, host, 'sliding-window');
  const plan = [...host.plans.values()].at(-1)!;
  assert.ok(plan.ledger, 'the engine computed a ledger');
  assert.ok(plan.lost, 'and a loss report');
  const lost = plan.lost;
  const lostLine = (await page.textContent('[data-stat=lost]'))?.replace(/\s+/g, ' ').trim() ?? '';
  if (lost.instructions.length > 0) assert.match(lostLine, new RegExp(`${lost.instructions.length} prompts?`));
  if (lost.files.length > 0) assert.match(lostLine, new RegExp(`${lost.files.length} files?`));
  const section = page.locator('[data-section=lost]');
  assert.equal((await section.locator('h2').textContent())?.trim(), 'What is lost');
  assert.equal(await section.locator('.ledger-file').count(), lost.files.length);
  assert.equal(await section.locator('.ledger-instruction').count(), lost.instructions.length);
  assert.equal(await section.locator('.ledger-command').count(), lost.commands.length);
  // The ledger card: collapsed, its counts in the summary line; open, one item per entry.
  const ledger = plan.ledger;
  await page.click('.plan-ledger > summary');
  assert.equal(await page.locator('.plan-ledger .ledger-file').count(), ledger.files.length);
  assert.equal(await page.locator('.plan-ledger .ledger-instruction').count(), ledger.instructions.length);
  const paths = await page.locator('.plan-ledger .ledger-path').allTextContents();
  assert.deepEqual(
    paths,
    ledger.files.map((f) => f.path),
  );
  await page.screenshot({ path: join(mkdirp(ARTIFACTS), 'inspector-ledger-light.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a summary row shows the ledger its compaction carried; a malformed ledger drops the message', async () => {
  const ctx = context();
  const messages = syntheticSession({ messages: 60, seed: 5 });
  const { page, host, errors } = await openInspector(h.browser, h.server, ctx);
  host.load({ messages });
  const { plan } = host.plan('recursive-summarization', {});
  const { messages: next, record } = host.applied(plan);
  assert.ok(plan.ledger && record.syntheticId, 'the LLM plan carries a ledger and writes a summary');
  await host.showSession({ messages: next, compactions: [{ ...record, ledger: plan.ledger }] });
  const i = next.findIndex((m) => m.id === record.syntheticId);
  await page.click(`[role=option][data-index="${i}"]`);
  await page.waitForSelector('.detail [data-card=ledger]');
  assert.equal(await page.locator('.detail [data-card=ledger] .ledger-file').count(), plan.ledger.files.length);
  // A session whose compaction carries a malformed ledger is dropped (the view keeps what it had).
  const bad = { ...host.session, compactions: [{ ...host.session.compactions[0]!, ledger: { files: 'x' } }] };
  await page.evaluate((m) => window.dispatchEvent(new MessageEvent('message', { data: m })), { type: 'session', session: bad });
  assert.equal(await page.locator('.detail [data-card=ledger] .ledger-file').count(), plan.ledger.files.length);
  assert.ok(
    errors.every((e) => /malformed|dropped|invalid/i.test(e)),
    errors.join('\n'),
  );
  await page.close();
});

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
