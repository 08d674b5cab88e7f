// A summary you can edit before it is applied (issue 13 §5), through the controller with the real
// SDK against the loopback server: the draft is held, the edited text is what is committed and sent
// in the next request, discard changes nothing, and auto-compaction with review=always pauses the
// agent between model calls until the draft is answered or its timeout applies it unedited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic, reply } from '../loopback/anthropic-server';
import type { HostSettings } from '../../src/settings/hostSettings';
import type { PendingDraft } from '../../src/agent/service/summaryDrafts';
import { isSummaryRequest } from '../helpers/summaryRequest';
import { toApiMessages } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { isInspectorSession } from '../../webview/inspector/hostMessages';
import { loopbackController } from '../helpers/loopbackController';

const DRAFT = 'DRAFT-SUMMARY: the user asked four questions about the code.';
/** The draft a reviewer sees: the model's summary with the artifact ledger appended (issue 13). */
const isDraft = (text: string | undefined) => !!text && text.startsWith(DRAFT) && text.includes('## Artifact ledger');

async function rig(settings: Partial<HostSettings> = {}) {
  const server = new LoopbackAnthropic({ consecutiveRoles: 'reject' });
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-draft-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-draft-ws-'));
  writeFileSync(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  server.responder = (req) => (isSummaryRequest(req.body) ? reply.text(DRAFT) : undefined);
  const c = loopbackController({ workspace, storage, baseURL, settings });
  const drafts: PendingDraft[] = [];
  c.drafts.onDidOpen((d) => drafts.push(d));
  return {
    server,
    workspace,
    c,
    drafts,
    async close() {
      c.dispose();
      await server.close();
    },
  };
}

async function chat(r: Awaited<ReturnType<typeof rig>>, turns: number, repeat = 20): Promise<void> {
  for (let i = 0; i < turns; i++) {
    r.server.queue.text(`Answer ${i}: ${'a long explanation of the code. '.repeat(repeat)}`);
    await r.c.send(`Question ${i}`);
  }
}

const RS = { strategy: 'recursive-summarization', params: { maxEventsToKeep: 2, overlapSize: 1 } } as const;

async function waitFor<T>(get: () => T | undefined, what: string, settled?: Promise<unknown>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  let early: unknown;
  void settled?.then((v) => (early = v ?? null));
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (early !== undefined) throw new Error(`ended before ${what}: ${JSON.stringify(early)?.slice(0, 500)}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

test('draftSummary holds the summary as a draft; the edited text is committed, recorded and sent in the next request', async () => {
  const r = await rig();
  try {
    await chat(r, 6, 120);
    const before = [...r.c.session.messages];
    const pending = r.c.draftSummary({ ...RS, focus: 'the answers', trigger: 'inspector' });
    const draft = await waitFor(() => r.drafts[0], 'the draft', pending);
    assert.ok(isDraft(draft.text), draft.text);
    assert.match(draft.text, /- Question 0/, 'the ledger lists the archived prompts');
    assert.equal(draft.focus, 'the answers');
    assert.ok(draft.archivedCount > 0);
    assert.deepEqual(r.c.session.messages, before, 'nothing is committed while the draft waits');
    assert.equal(r.c.drafts.list().length, 1);

    const edited = 'EDITED-SUMMARY: questions 0-3 were answered; the user prefers short answers.';
    assert.equal(r.c.applyDraft(draft.id, `  ${edited}\n`), true);
    const outcome = await pending;
    assert.ok(outcome.ok === true, JSON.stringify(outcome));
    assert.equal(outcome.record.draft, draft.text);
    assert.equal(outcome.record.finalText, edited);
    assert.equal(outcome.record.focus, 'the answers');
    assert.deepEqual(r.c.session.meta.compactions.at(-1), outcome.record, 'the record is in the session meta');
    assert.equal(r.c.drafts.list().length, 0);
    assert.equal(r.c.applyDraft(draft.id, 'again'), false, 'a draft is answered once');

    // The inspector's compaction history carries the focus, the draft and the final text, validated.
    const view = r.c.inspectorSession();
    const shown = view.compactions.at(-1)!;
    assert.deepEqual([shown.focus, shown.draft, shown.finalText], ['the answers', draft.text, edited]);
    assert.equal(isInspectorSession(view), true);
    assert.equal(isInspectorSession({ ...view, compactions: [{ ...shown, draft: 42 }] }), false);

    r.server.queue.text('Noted.');
    await r.c.send('Next question');
    const body = JSON.stringify(r.server.messageRequests.at(-1)!.body.messages);
    assert.ok(body.includes(edited), 'the next request carries the edited summary');
    assert.ok(!body.includes(DRAFT), 'and not the draft');
    assert.deepEqual(requestViolations(toApiMessages(r.c.session.messages)), []);
  } finally {
    await r.close();
  }
});

test('discarding a draft leaves the history and the compaction records unchanged', async () => {
  const r = await rig();
  try {
    await chat(r, 6, 120);
    const before = [...r.c.session.messages];
    const pending = r.c.draftSummary(RS);
    const draft = await waitFor(() => r.drafts[0], 'the draft', pending);
    assert.equal(r.c.discardDraft(draft.id), true);
    const outcome = await pending;
    assert.ok(outcome.ok === false && outcome.reason === 'discarded', JSON.stringify(outcome));
    assert.deepEqual(r.c.session.messages, before);
    assert.equal(r.c.session.meta.compactions.length, 0);
    const items = r.c.chatState(true).items;
    assert.match(JSON.stringify(items.at(-1)), /discarded; the history is unchanged/);
  } finally {
    await r.close();
  }
});

test('an edited summary that is empty is refused and the history stays unchanged', async () => {
  const r = await rig();
  try {
    await chat(r, 6, 120);
    const before = [...r.c.session.messages];
    const pending = r.c.draftSummary(RS);
    const draft = await waitFor(() => r.drafts[0], 'the draft', pending);
    r.c.applyDraft(draft.id, '  \n ');
    const outcome = await pending;
    assert.ok(outcome.ok === false && outcome.reason === 'summary-failed', JSON.stringify(outcome));
    assert.deepEqual(r.c.session.messages, before);
  } finally {
    await r.close();
  }
});

test('review=always: auto-compaction pauses after a tool result, before the next model call; the timeout applies the draft unedited', async () => {
  const r = await rig({
    contextWindow: 20_000,
    maxOutputTokens: 1_000,
    autoCompact: { enabled: true, threshold: 0.5, strategy: 'recursive-summarization', review: 'always', reviewTimeoutSeconds: 1 },
    strategyParams: { 'recursive-summarization': { maxEventsToKeep: 2, overlapSize: 1 } },
  });
  try {
    await chat(r, 5, 100);
    const meter = r.c.contextMeter();
    const threshold = meter.threshold ?? 0;
    assert.ok(meter.used < threshold, `below the threshold before the tool round: ${meter.used} / ${threshold}`);
    // The tool_result of this read alone takes the request over the threshold.
    const lines = Math.ceil((threshold - meter.used) / 8) + 100;
    const big = Array.from({ length: lines }, (_, i) => `export const value${i} = ${i}; // line ${i} of the big file`).join('\n');
    writeFileSync(join(r.workspace, 'big.ts'), big);
    r.server.queue.toolUse('read_file', { path: 'big.ts' }, { text: 'Let me look.' });
    const sent = r.c.send('What is the answer?');
    const draft = await waitFor(
      () => r.drafts[0],
      'the auto-compaction draft',
      sent.then(() => r.c.chatState(true).items.at(-1)),
    );
    r.server.queue.text('The answer is 41.'); // (queued replies go before the summary responder)
    assert.equal(draft.trigger, 'auto');
    assert.ok(draft.deadline !== undefined, 'an auto draft has a deadline');
    // Paused at a safe point: the tool_result is in, and no model call went out after the summary.
    const last = r.c.session.messages.at(-1)!;
    assert.equal(last.role, 'user');
    assert.ok(
      Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'),
      'the tool_use already has its tool_result',
    );
    const requestsWhilePaused = r.server.messageRequests.length;
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(r.server.messageRequests.length, requestsWhilePaused, 'the agent waits for the review');
    assert.equal(r.c.session.meta.compactions.length, 0);

    await sent; // the 1 s timeout applies the draft unedited and the run continues
    const record = r.c.session.meta.compactions.at(-1);
    assert.ok(record, 'the timeout applied the draft');
    assert.equal(record.trigger, 'auto');
    assert.ok(isDraft(record.draft), record.draft);
    assert.equal(record.finalText, record.draft, 'the timeout applies the draft unedited');
    const next = JSON.stringify(r.server.messageRequests.at(-1)!.body.messages);
    assert.ok(next.includes(DRAFT), 'the request after the pause carries the summary');
    assert.deepEqual(requestViolations(toApiMessages(r.c.session.messages)), []);
  } finally {
    await r.close();
  }
});

test('review=never (the default): auto-compaction applies directly, without a draft', async () => {
  const r = await rig({
    contextWindow: 6_000,
    maxOutputTokens: 1_000,
    autoCompact: { enabled: true, threshold: 0.5, strategy: 'recursive-summarization' },
    strategyParams: { 'recursive-summarization': { maxEventsToKeep: 2, overlapSize: 1 } },
  });
  try {
    await chat(r, 6, 60);
    assert.ok(r.c.session.meta.compactions.length > 0);
    assert.equal(r.drafts.length, 0);
    assert.equal(r.c.session.meta.compactions[0].draft, undefined);
  } finally {
    await r.close();
  }
});
