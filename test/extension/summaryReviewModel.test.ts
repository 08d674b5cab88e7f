// SummaryReviewModel over real SummaryDrafts (no VS Code): a draft's document path and text, saving
// without applying, applying the edited text without the instruction comment, discard, and the
// notification of a draft that paused the agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SummaryDrafts } from '../../src/agent/service/summaryDrafts';
import type { CompactionPlan, SummaryDecision, SummaryDraft } from '../../src/core';
import { SummaryReviewModel, summaryTextOf } from '../../src/extension/summaryReviewModel';

function rig() {
  const drafts = new SummaryDrafts(() => 1_000_000);
  const model = new SummaryReviewModel({
    drafts,
    applyDraft: (id, text) => drafts.apply(id, text),
    discardDraft: (id) => drafts.discard(id),
  });
  const draft = (text: string, trigger: SummaryDraft['trigger'] = 'inspector'): SummaryDraft => ({
    id: `draft_${Math.random().toString(36).slice(2, 10)}`,
    strategy: 'recursive-summarization',
    trigger,
    text,
    plan: { archived: [{ id: 'a' }, { id: 'b' }] } as unknown as CompactionPlan,
    createdAt: 0,
  });
  return { drafts, model, draft };
}

test('a waiting draft is a markdown document: an instruction comment, then the draft; unknown paths are not', () => {
  const { drafts, model, draft } = rig();
  const d = draft('The summary.');
  void drafts.review(d);
  const path = model.pathFor(drafts.get(d.id)!);
  assert.match(path, /^\/recursive-summarization summary draft_[a-z0-9]+\.md$/);
  const text = model.read(path)!;
  assert.match(text, /^<!-- splitpoint:draft recursive-summarization \(inspector\), 2 messages archived\./);
  assert.ok(text.endsWith('-->\n\nThe summary.\n'));
  assert.equal(summaryTextOf(text), 'The summary.');
  assert.equal(model.read('/recursive-summarization summary draft_nope.md'), undefined);
  assert.equal(model.read('/../etc/passwd'), undefined);
});

test('saving keeps the text without applying; apply commits the edited text without the comment', async () => {
  const { drafts, model, draft } = rig();
  const d = draft('Original.');
  const decision: Promise<SummaryDecision> = drafts.review(d);
  const path = model.pathFor(drafts.get(d.id)!);
  const edited = model.read(path)!.replace('Original.', 'Edited: keep the API contract.\n\n- item');
  assert.equal(model.write(path, edited), true);
  assert.equal(model.read(path), edited, 'saved text is what the document reads back');
  assert.equal(drafts.list().length, 1, 'saving applies nothing');
  assert.deepEqual(model.apply(path, edited), { ok: true });
  assert.deepEqual(await decision, { apply: true, text: 'Edited: keep the API contract.\n\n- item' });
  assert.equal(model.read(path), undefined, 'an applied draft is no longer a document');
  const again = model.apply(path, edited);
  assert.equal(again.ok, false);
  // Once the host heard it ended, its editor can still save and read (it closes without a prompt).
  model.forget(d.id);
  assert.equal(model.write(path, 'late edit'), true);
  assert.equal(model.read(path), 'late edit');
  assert.equal(model.apply(path, 'late edit').ok, false, 'but nothing more is applied');
});

test('discard answers the reviewer with no text; a deleted comment is fine (all text applied)', async () => {
  const { drafts, model, draft } = rig();
  const d = draft('To drop.');
  const decision = drafts.review(d);
  assert.equal(model.discard(model.pathFor(drafts.get(d.id)!)), true);
  assert.equal((await decision).apply, false);
  assert.equal(summaryTextOf('  Only my text.\n'), 'Only my text.');
  assert.equal(summaryTextOf('<!-- splitpoint:draft unterminated'), '<!-- splitpoint:draft unterminated');
});

test('an auto draft has a notification with the seconds left; a manual draft has none', () => {
  const { drafts, model, draft } = rig();
  const auto = draft('Auto.', 'auto');
  void drafts.review(auto, { timeoutMs: 30_000 });
  const manual = draft('Manual.');
  void drafts.review(manual);
  assert.match(model.notification(drafts.get(auto.id)!, 1_000_000 + 10_000)!, /paused the agent.*applied unedited in 20 s/);
  assert.equal(model.notification(drafts.get(manual.id)!, 1_000_000), undefined);
  drafts.dispose();
});

test('a draft under review is cancelled by its signal and applied unedited by its timeout', async () => {
  const { drafts, draft } = rig();
  const ac = new AbortController();
  const cancelled = drafts.review(draft('x'), { signal: ac.signal });
  ac.abort();
  assert.equal((await cancelled).apply, false);
  const timed = drafts.review(draft('Unedited.'), { timeoutMs: 20 });
  assert.deepEqual(await timed, { apply: true, text: 'Unedited.' });
  assert.equal(drafts.list().length, 0);
});
