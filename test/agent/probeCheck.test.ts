// "Check this compaction" (issue 22) end to end in plain Node over the loopback server: a real session
// (an approved edit, a failing command, the user's constraint, a figure the agent stated), a sliding-
// window compaction, and the check: one request through the real SDK carrying the compacted context
// and the probe questions, answered by the loopback from the request text (probeAnswers.ts), scored by
// core. A fact archived without surviving is missed; pinning its source (the compaction is undone
// to bring it back) and compacting again makes it answered. The card's other actions: the ledger, undo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateProbes, priceLookup, textOf, type Probe } from '../../src/core';
import type { ChatItem, ProbeCheckItem } from '../../src/protocol';
import { probeQuestions } from '../loopback/probeAnswers';
import type { ValidRequest } from '../loopback/wire';
import Anthropic from '@anthropic-ai/sdk';
import { runProbeRequest } from '../../src/agent/loop/probeRunner';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { establishFacts, probeRig } from './probeCheck.rig';

const SLIDING = { strategy: 'sliding-window', params: { maxEvents: 4 } } as const;

/** The text of every message of a request before its last user turn (what the compacted context says). */
function contextText(req: ValidRequest): string {
  const messages = req.body.messages as Array<{ content: unknown }>;
  return messages
    .slice(0, -1)
    .map((m) => JSON.stringify(m.content))
    .join('\n');
}

const probeRequests = (requests: readonly unknown[]) => (requests as ValidRequest[]).filter((r) => r.source === 'probes');

test('the check asks the compacted context; an archived fact is missed until its source is pinned and the session compacted again', async (t) => {
  const r = await probeRig();
  try {
    const c = r.make({ probes: { afterCompaction: 'off', model: '' } });
    await establishFacts(c, r.server);
    const figure = c.session.messages.find((m) => textOf(m).includes('1834 ms'))!;
    const out = await c.compactNow(SLIDING);
    assert.equal(out.ok, true);
    assert.ok(!c.session.messages.some((m) => m.id === figure.id), 'the sliding window archived the figure');
    const record = c.session.meta.compactions.at(-1)!;
    const probes = c.probes.probesOf(record);
    const context = c.pipeline.prepareRequest().messages;

    const before = r.server.requests.length;
    const card = await c.probes.check(record.id);
    const sent = r.server.requests.slice(before) as ValidRequest[];
    assert.equal(sent.length, 1, 'one request');
    const req = sent[0]!;
    assert.equal(req.source, 'probes');
    assert.equal(req.body.model, priceLookup('claude-haiku-4-5').row, 'the cheapest of the Claude family by default');
    assert.deepEqual(req.body.tool_choice, { type: 'none' });
    // The compacted context as the agent sends it, then the questions as the last user turn.
    const messages = req.body.messages as unknown[];
    assert.equal(context.at(-1)!.role, 'assistant', 'the session ended on a reply: the questions are a new user turn');
    assert.deepEqual(messages.slice(0, -1), JSON.parse(JSON.stringify(context)));
    const asked = probeQuestions(textOf({ role: 'user', content: (messages.at(-1) as { content: never }).content } as never));
    assert.deepEqual(
      asked.map((q) => q.id),
      probes.map((p) => p.id),
    );

    assert.equal(card.status, 'done');
    assert.equal(card.total, probes.length);
    const text = contextText(req);
    const figureProbe = probes.find((p) => p.kind === 'recall' && p.sources[0] === figure.id && !text.includes(p.expected[0]!))!;
    assert.ok(figureProbe, 'a recall probe on the archived figure, whose answer the context no longer holds');
    const miss = card.missed.find((m) => m.probeId === figureProbe.id);
    assert.ok(miss && miss.verdict !== 'uncertain', 'the archived figure is missed');
    assert.equal(miss.sourceId, figure.id);
    const kept = probes.find((p) => p.kind === 'decision' && p.expected.some((e) => text.includes(e)))!;
    assert.ok(kept, "the user's constraint survives in the ledger");
    assert.ok(!card.missed.some((m) => m.probeId === kept.id), 'what the context holds is answered');
    assert.equal(card.correct, card.total - card.missed.length);
    assert.equal(PROBE_TOTAL(card), card.total);
    assert.ok(card.costUSD !== undefined && card.costUSD > 0, 'priced from the usage the API reported');
    const rateBefore = card.correct / card.total;

    // Pin the source: it was archived, so the compaction is undone first; the next compaction keeps it.
    c.probes.act(card.id, figureProbe.id, 'pin');
    assert.equal(c.session.meta.compactions.at(-1)!.trigger, 'undo');
    assert.ok(c.pinnedIds().has(figure.id));
    assert.equal(
      (c.chatState(true).items.find((i) => i.id === card.id) as ProbeCheckItem).missed.find((m) => m.probeId === figureProbe.id)?.done,
      'pinned',
    );
    assert.equal((await c.compactNow(SLIDING)).ok, true);
    assert.ok(
      c.session.messages.some((m) => m.id === figure.id),
      'the second compaction keeps the pinned source',
    );
    const again = await c.probes.check();
    assert.ok(!again.missed.some((m) => m.probeId === figureProbe.id));
    // The pinned probe is asked again (its source is no longer archived, so no new probe asks it) and answered.
    assert.deepEqual(
      again.followed?.map((f) => [f.probeId, f.answered]),
      [[figureProbe.id, true]],
    );
    const lastAsked = probeQuestions(
      textOf({ role: 'user', content: (probeRequests(r.server.requests).at(-1)!.body.messages as never[]).at(-1)!['content'] } as never),
    );
    assert.ok(
      lastAsked.some((q) => q.id === figureProbe.id),
      'the followed probe is in the request',
    );
    // Once answered it is not followed any more.
    const third = await c.probes.check();
    assert.equal(third.followed, undefined);
    const rateAfter = again.correct / again.total;
    assert.ok(rateAfter > rateBefore, `${rateAfter} > ${rateBefore}`);
    // The first check's probes, asked of the context after the pin and the second compaction.
    const client = new Anthropic({ apiKey: 'k', baseURL: r.baseURL, maxRetries: 0 });
    const same = await runProbeRequest({
      client,
      model: 'claude-haiku-4-5',
      system: '',
      tools: [],
      context: c.pipeline.prepareRequest().messages,
      probes,
    });
    assert.ok(same.ok);
    const sameCorrect = same.answers.filter((a) => a.verdict === 'correct').length;
    assert.ok(sameCorrect > card.correct, `the first check's probes: ${sameCorrect} > ${card.correct}`);
    t.diagnostic(
      `first check ${card.correct}/${card.total}; its probes after pin + second compaction ${sameCorrect}/${probes.length}; ` +
        `second check ${again.correct}/${again.total} (+ the followed probe answered)`,
    );
  } finally {
    await r.close();
  }
});

const PROBE_TOTAL = (card: ProbeCheckItem) => Object.values(card.byKind).reduce((n, k) => n + k.total, 0);

test('splitpoint.probes.afterCompaction: off and ask only price the check on the divider; always runs it', async () => {
  const r = await probeRig();
  try {
    for (const mode of ['off', 'ask', 'always'] as const) {
      const c = r.make({ probes: { afterCompaction: mode, model: '' } });
      c.newChat();
      await establishFacts(c, r.server);
      const before = probeRequests(r.server.requests).length;
      const cards = new Promise<ProbeCheckItem>((resolve) => {
        c.onDidChangeChat((ch) => {
          if (ch.kind === 'item' && ch.item.kind === 'probes' && ch.item.status !== 'running') resolve(ch.item);
        });
      });
      const out = await c.compactNow(SLIDING);
      assert.equal(out.ok, true);
      const divider = c.chatState(true).items.find((i) => i.kind === 'compaction' && out.ok === true && i.id === out.record.id) as Extract<
        ChatItem,
        { kind: 'compaction' }
      >;
      assert.ok(divider.check, `${mode}: the divider carries the price`);
      assert.equal(divider.check.offer, mode === 'ask', `${mode}: offered on the divider`);
      const probes = generateProbesOf(c);
      assert.equal(divider.check.probes, probes.length);
      const price = priceLookup(divider.check.model).price;
      assert.ok(divider.check.estimateUSD > (divider.check.inputTokens * price.input) / 1e6, 'input priced, output estimated on top');
      if (mode === 'always') {
        const card = await cards;
        assert.equal(card.status, 'done');
        assert.equal(probeRequests(r.server.requests).length, before + 1);
      } else {
        await new Promise((res) => setTimeout(res, 50));
        assert.equal(probeRequests(r.server.requests).length, before, `${mode}: nothing sent without a click`);
      }
    }
  } finally {
    await r.close();
  }
});

function generateProbesOf(c: ReturnType<Awaited<ReturnType<typeof probeRig>>['make']>): Probe[] {
  return c.probes.probesOf(c.session.meta.compactions.at(-1)!);
}

test('splitpoint.probes.model is the model asked; the estimate uses its price', async () => {
  const r = await probeRig();
  try {
    const c = r.make({ probes: { afterCompaction: 'off', model: 'claude-sonnet-4-5' } });
    await establishFacts(c, r.server);
    await c.compactNow(SLIDING);
    const { offer } = c.probes.offerFor();
    assert.equal(offer.model, 'claude-sonnet-4-5');
    const sonnet = priceLookup('claude-sonnet-4-5').price;
    assert.ok(Math.abs(offer.estimateUSD - (offer.inputTokens * sonnet.input + offer.probes * 40 * sonnet.output) / 1e6) < 1e-12);
    await c.probes.check();
    assert.equal(probeRequests(r.server.requests).at(-1)!.body?.model, 'claude-sonnet-4-5');
  } finally {
    await r.close();
  }
});

test('bad model answers: no JSON, only ids that were not asked, a few unknown ids, an API error', async () => {
  const r = await probeRig();
  try {
    const c = r.make({ probes: { afterCompaction: 'off', model: '' } });
    await establishFacts(c, r.server);
    await c.compactNow(SLIDING);
    r.server.probes = 'script';
    r.server.queue.text('I am sorry, I cannot answer questions about this conversation.');
    const noJson = await c.probes.check();
    assert.equal(noJson.status, 'failed');
    assert.match(noJson.error ?? '', /held no JSON \{"answers"/);
    assert.match(noJson.error ?? '', /I am sorry/);

    r.server.queue.text('```json\n{"answers":[{"id":"p-made-up","answer":"parser.ts"}]}\n```');
    const wrongIds = await c.probes.check();
    assert.equal(wrongIds.status, 'failed');
    assert.match(wrongIds.error ?? '', /only ids that were not asked \(p-made-up\)/);

    const probes = generateProbesOf(c);
    const first = probes[0]!;
    r.server.queue.text(
      JSON.stringify({
        answers: [
          { id: first.id, answer: first.expected[0] },
          { id: 'p-extra', answer: 'x' },
          { id: probes[1]!.id, answer: 'unknown' },
        ],
      }),
    );
    const mixed = await c.probes.check();
    assert.equal(mixed.status, 'done');
    assert.equal(mixed.correct, 1);
    assert.equal(mixed.missed.find((m) => m.probeId === probes[1]!.id)?.verdict, 'unanswered', '"unknown" is no answer');
    assert.equal(mixed.missed.filter((m) => m.verdict === 'unanswered').length, probes.length - 1);
    assert.ok(
      c
        .chatState(true)
        .items.some((i) => i.kind === 'notice' && /Ignored 1 answer\(s\) to ids that were not asked: p-extra/.test(i.message)),
    );

    r.server.queue.error(500, 'api_error', 'the probes model is down', { shouldRetry: false });
    const failed = await c.probes.check();
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /The probe request failed: .*the probes model is down/);
  } finally {
    await r.close();
  }
});

test("the card's actions: add the fact to the ledger (re-applied: answered next time), undo the compaction, refusals", async () => {
  const r = await probeRig();
  try {
    const c = r.make({ probes: { afterCompaction: 'off', model: '' } });
    await establishFacts(c, r.server);
    await c.compactNow(SLIDING);
    const card = await c.probes.check();
    const miss = card.missed.find((m) => m.kind === 'recall' && m.verdict !== 'uncertain')!;
    assert.ok(miss, 'a missed recall probe');
    assert.ok(card.undoable);
    assert.throws(() => c.probes.act(card.id, 'p-nope', 'pin'), /has no probe "p-nope"/);
    assert.throws(() => c.probes.act('probes_nope', miss.probeId, 'pin'), /no probe check "probes_nope"/);

    c.probes.act(card.id, miss.probeId, 'addToLedger');
    const summary = c.session.messages.find((m) => m.synthetic)!;
    assert.ok(
      miss.expected.some((e) => textOf(summary).includes(e)),
      'the fact is in the compaction message now',
    );
    const again = await c.probes.check();
    assert.ok(!again.missed.some((m) => m.probeId === miss.probeId), 'and the model answers it');
    assert.equal(again.followed, undefined, 'still a probe of this compaction: asked as one, not followed');

    const compactions = c.session.meta.compactions.length;
    c.probes.act(again.id, again.missed[0]?.probeId ?? miss.probeId, 'undo');
    assert.equal(c.session.meta.compactions.length, compactions + 1);
    assert.equal(c.session.meta.compactions.at(-1)!.trigger, 'undo');
    assert.throws(() => c.probes.act(again.id, miss.probeId, 'undo'), /Only the last compaction can be undone/);
    await assert.rejects(c.probes.check('cmp_nope'), /no compaction "cmp_nope"/);
  } finally {
    await r.close();
  }
});

test('the probes of a compaction are the same on a second run (same input, same probes)', async () => {
  const r = await probeRig();
  try {
    const c = r.make({ probes: { afterCompaction: 'off', model: '' } });
    await establishFacts(c, r.server);
    await c.compactNow(SLIDING);
    const record = c.session.meta.compactions.at(-1)!;
    assert.deepEqual(c.probes.probesOf(record), c.probes.probesOf(record));
    assert.ok(generateProbes({ archived: [] }).length === 0);
  } finally {
    await r.close();
  }
});

test("'always' checks an auto-compaction that runs in the middle of the agent's work", async () => {
  const r = await probeRig();
  try {
    const c = r.make({
      probes: { afterCompaction: 'always', model: '' },
      contextWindow: 2_500,
      autoCompact: { ...DEFAULT_HOST_SETTINGS.autoCompact, enabled: true, threshold: 0.5, strategy: 'sliding-window' },
      strategyParams: { 'sliding-window': { maxEvents: 4 } },
    });
    const done = new Promise<ProbeCheckItem>((resolve) => {
      c.onDidChangeChat((ch) => {
        if (ch.kind === 'item' && ch.item.kind === 'probes' && ch.item.status !== 'running') resolve(ch.item);
      });
    });
    await establishFacts(c, r.server);
    for (let i = 0; i < 12 && !c.session.meta.compactions.some((x) => x.trigger === 'auto'); i++) {
      r.server.queue.text(`Filler answer ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}`);
      await c.send(`Filler ${i}.`);
    }
    const auto = c.session.meta.compactions.find((x) => x.trigger === 'auto');
    assert.ok(auto, 'the budget trigger compacted during a run');
    const card = await done;
    assert.equal(card.compactionId, auto.id);
    assert.equal(card.status, 'done', card.error);
    assert.ok(probeRequests(r.server.requests).length >= 1);
  } finally {
    await r.close();
  }
});
