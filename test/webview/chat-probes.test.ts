// "Check this compaction" in the chat view (headless Chromium): the divider's button with the check's
// price (an offer under the line with afterCompaction = ask, a link in it otherwise, none on an undone
// compaction), what it posts, the result card (the rate overall and by kind, the missed probes, the
// uncertain ones apart, the source link that scrolls to the message, the actions and what they post),
// the model's answers rendered through the sanitizer, and a malformed card dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem, HostToChat, ProbeCheckItem, ProbeCheckOffer } from '../../src/protocol';
import { assertClean, chatPagesForFile } from './chat-support';
import { XSS_DOCUMENT } from './xss-corpus';

const { openWith } = chatPagesForFile();

const offer = (o: Partial<ProbeCheckOffer> = {}): ProbeCheckOffer => ({
  model: 'claude-haiku-4-5',
  probes: 9,
  inputTokens: 1745,
  estimateUSD: 0.003145,
  offer: true,
  ...o,
});

const divider = (check?: ProbeCheckOffer, undone = false): ChatItem => ({
  kind: 'compaction',
  id: 'cmp_1',
  strategy: 'sliding-window',
  trigger: 'manual',
  tokensBefore: 3200,
  tokensAfter: 900,
  transcriptPath: '/ws/.transcripts/t1.jsonl',
  archivedCount: 12,
  ...(undone ? { undone } : {}),
  ...(check ? { check } : {}),
});

function card(over: Partial<ProbeCheckItem> = {}): ProbeCheckItem {
  return {
    kind: 'probes',
    id: 'probes_cmp_1_1',
    compactionId: 'cmp_1',
    model: 'claude-haiku-4-5',
    status: 'done',
    correct: 5,
    total: 9,
    byKind: {
      artifact: { correct: 1, total: 1 },
      recall: { correct: 0, total: 2 },
      decision: { correct: 2, total: 2 },
      continuation: { correct: 2, total: 4 },
    },
    missed: [
      {
        probeId: 'p-recall-1',
        kind: 'recall',
        question: 'The session stated: "The old parser took ___ per run". What figure goes in the blank?',
        expected: ['1834 ms'],
        answer: 'unknown',
        verdict: 'unanswered',
        sourceId: 'a_fig',
      },
      {
        probeId: 'p-recall-2',
        kind: 'recall',
        question: 'What error did `pnpm test` report?',
        expected: ['Error: limit exceeded'],
        answer: 'It said **nothing** useful.',
        verdict: 'wrong',
        sourceId: 'a_gone',
      },
      {
        probeId: 'p-continuation-1',
        kind: 'continuation',
        question: 'What did the agent say it would do next?',
        expected: ['lower the limit to 40'],
        answer: 'Probably lower the limit.',
        verdict: 'uncertain',
        sourceId: 'a_fig',
      },
    ],
    costUSD: 0.003203,
    undoable: true,
    ...over,
  };
}

const conversation = (...more: ChatItem[]): ChatItem[] => [
  { kind: 'user', id: 'chat_u1', messageId: 'u_1', text: 'How fast is the parser now?' },
  { kind: 'assistant', id: 'chat_a1', messageId: 'a_fig', text: 'The old parser took 1834 ms per run.', streaming: false },
  ...Array.from({ length: 30 }, (_, i): ChatItem => ({ kind: 'notice', id: `n${i}`, message: `Filler line ${i}` })),
  ...more,
];

test('the divider offers the check with its price (ask) and posts checkCompaction; a plain link otherwise; none when undone', async () => {
  const p = await openWith(conversation(divider(offer())));
  const button = p.page.getByRole('button', { name: 'Check this compaction (≈ $0.0031)' });
  assert.equal(await button.count(), 1, 'the price is in the label');
  assert.match((await p.page.locator('.compaction-offer').textContent()) ?? '', /What did it lose\?/);
  assert.match((await button.getAttribute('title')) ?? '', /9 questions .* claude-haiku-4-5 \(about 1,745 input tokens\)/);
  await p.clearPosted();
  await button.click();
  assert.deepEqual(await p.intents(), [{ type: 'checkCompaction', compactionId: 'cmp_1' }]);

  await p.deliver({ type: 'item', item: divider(offer({ offer: false, estimateUSD: 1.5 })) });
  await p.settle();
  assert.equal(await p.page.locator('.compaction-offer').count(), 0, 'off / always: no offer row');
  assert.equal(await p.page.locator('.compaction-line').getByRole('button', { name: 'Check this compaction (≈ $1.50)' }).count(), 1);

  await p.deliver({ type: 'item', item: divider(offer(), true) });
  await p.settle();
  assert.equal(await p.page.locator('[data-action="check-compaction"]').count(), 0, 'an undone compaction is not checked');
  await p.deliver({ type: 'item', item: divider(undefined) });
  await p.settle();
  assert.equal(await p.page.locator('[data-action="check-compaction"]').count(), 0, 'not priced: not offered');
  await assertClean(p);
});

test('the card: the rate by kind, the missed probes then the uncertain ones, the source link, the actions', async () => {
  const p = await openWith(conversation(divider(offer()), card()));
  const c = p.page.locator('section.probe-card');
  assert.equal(await c.locator('[data-rate]').textContent(), '5/9');
  const rateLine = (await c.locator('.probe-rate').textContent()) ?? '';
  assert.match(rateLine, /artifact 1\/1 · recall 0\/2 · decision 2\/2 · continuation 2\/4/);
  assert.match((await c.locator('.probe-head').textContent()) ?? '', /claude-haiku-4-5 · \$0\.0032/);
  const lists = c.locator('.probe-misses');
  assert.equal(await lists.count(), 2);
  assert.deepEqual(
    await lists
      .nth(0)
      .locator('li')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-probe-id'))),
    ['p-recall-1', 'p-recall-2'],
  );
  assert.match((await lists.nth(1).locator('h4').textContent()) ?? '', /^Uncertain/);
  assert.deepEqual(
    await lists
      .nth(1)
      .locator('li')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-probe-id'))),
    ['p-continuation-1'],
  );
  const first = c.locator('li[data-probe-id="p-recall-1"]');
  assert.match((await first.textContent()) ?? '', /What figure goes in the blank\?.*Expected: 1834 ms.*No answer\./s);
  assert.match((await c.locator('li[data-probe-id="p-recall-2"]').textContent()) ?? '', /Source a_gone \(not in this chat\)/);

  // The source is in the chat: the link scrolls to it and moves the focus there.
  await p.page.locator('.conversation').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await first.getByRole('button', { name: 'Show source' }).click();
  assert.equal(await p.page.evaluate(() => document.activeElement?.id), 'msg-a_fig');
  const visible = await p.page.locator('#msg-a_fig').evaluate((el) => {
    const r = el.getBoundingClientRect();
    const box = document.querySelector('.conversation')!.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  });
  assert.ok(visible, 'scrolled into view');

  await p.clearPosted();
  await first.getByRole('button', { name: 'Pin source message' }).click();
  await first.getByRole('button', { name: 'Add to ledger' }).click();
  await first.getByRole('button', { name: 'Undo the compaction' }).click();
  assert.deepEqual(await p.intents(), [
    { type: 'probeAction', checkId: 'probes_cmp_1_1', probeId: 'p-recall-1', action: 'pin' },
    { type: 'probeAction', checkId: 'probes_cmp_1_1', probeId: 'p-recall-1', action: 'addToLedger' },
    { type: 'probeAction', checkId: 'probes_cmp_1_1', probeId: 'p-recall-1', action: 'undo' },
  ]);

  // Done: the row says so and offers nothing more; not undoable: no Undo.
  const done = card({ undoable: false, missed: card().missed.map((m, i) => (i === 0 ? { ...m, done: 'pinned' as const } : m)) });
  await p.deliver({ type: 'item', item: done });
  await p.settle();
  assert.match((await first.textContent()) ?? '', /Source pinned/);
  assert.equal(await first.getByRole('button', { name: 'Pin source message' }).count(), 0);
  assert.equal(await c.getByRole('button', { name: 'Undo the compaction' }).count(), 0);

  // A later check asks the probes acted on again.
  const followed = [
    { probeId: 'p-recall-1', question: 'The old parser took ___ per run?', expected: ['1834 ms'], answered: true },
    { probeId: 'p-recall-9', question: 'Which flag?', expected: ['--runInBand'], answered: false },
  ];
  await p.deliver({ type: 'item', item: card({ id: 'probes_cmp_2_1', compactionId: 'cmp_2', followed }) });
  await p.settle();
  const again = p.page.locator('section[data-check-id="probes_cmp_2_1"] .probe-followed');
  assert.match((await again.locator('h4').textContent()) ?? '', /Asked again/);
  assert.match((await again.locator('li[data-probe-id="p-recall-1"]').textContent()) ?? '', /✓ answered now .*1834 ms/);
  assert.equal(await again.locator('li[data-answered="false"]').getAttribute('data-probe-id'), 'p-recall-9');
  await assertClean(p);
});

test('running, failed and announced: the card follows the host', async () => {
  const p = await openWith(conversation(divider(offer()), card({ status: 'running', correct: 0, missed: [] })));
  assert.match((await p.page.locator('section.probe-card').textContent()) ?? '', /Asking 9 questions…/);
  await p.deliver({ type: 'item', item: card() });
  await p.settle();
  assert.match((await p.page.locator('[role="status"]').textContent()) ?? '', /Compaction check: 5 of 9 answered correctly\./);
  await p.deliver({
    type: 'item',
    item: card({ id: 'probes_cmp_1_2', status: 'failed', error: 'The probes model\'s reply held no JSON {"answers": …}', missed: [] }),
  });
  await p.settle();
  assert.match((await p.page.locator('section.probe-card.failed .probe-error').textContent()) ?? '', /held no JSON/);
  await assertClean(p);
});

test("the model's answers go through the sanitizer: the XSS corpus as an answer is inert; a question's markup is text", async () => {
  const hostile = card({
    missed: [
      {
        ...card().missed[1]!,
        question: '<img src=x onerror="window.__pwned=1"> Which file?',
        answer: XSS_DOCUMENT,
      },
    ],
  });
  const p = await openWith(conversation(hostile));
  await p.clearPosted();
  const row = p.page.locator('li.probe-miss');
  assert.match((await row.locator('.probe-question').textContent()) ?? '', /<img src=x onerror/);
  const bad = await row.locator('.probe-answer').evaluate((root) => {
    const out: string[] = [];
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      if (['script', 'iframe', 'object', 'embed', 'form', 'input', 'a', 'svg', 'style', 'link', 'meta'].includes(tag)) out.push(tag);
      for (const a of el.attributes) if (/^on|^href$|^style$/.test(a.name)) out.push(`${tag}[${a.name}]`);
    }
    return out;
  });
  assert.match((await row.locator('.probe-answer').textContent()) ?? '', /Payload 1 \(/, 'the answer is rendered');
  assert.deepEqual(bad, []);
  assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.deepEqual(await p.intents(), [], 'nothing posted');
  await assertClean(p);
});

test('a malformed card or offer from the host is dropped, and the view keeps working', async () => {
  const p = await openWith(conversation(divider(offer())));
  const broken: unknown[] = [
    { ...card(), missed: [{ ...card().missed[0]!, verdict: 'bogus' }] },
    { ...card(), byKind: { artifact: { correct: 1, total: 1 } } },
    { ...card(), correct: -1 },
    { ...card(), status: 'maybe' },
    { ...card(), followed: [{ probeId: 'p', question: 'q', expected: ['e'], answered: 'yes' }] },
    { ...divider(), check: { ...offer(), estimateUSD: 'free' } },
  ];
  await p.deliver(...broken.map((item) => ({ type: 'item', item }) as HostToChat));
  await p.settle();
  assert.equal(await p.page.locator('section.probe-card').count(), 0);
  assert.equal(await p.page.getByRole('button', { name: /Check this compaction/ }).count(), 1, 'the valid divider stays');
  await p.deliver({ type: 'item', item: card() });
  await p.settle();
  assert.equal(await p.page.locator('section.probe-card').count(), 1);
  await assertClean(p);
});
