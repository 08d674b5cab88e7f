// File review's webview messages and document URIs, without VS Code: the chat's review intents and
// the inspector's restore intent are validated like every other (exact keys, non-empty ids within
// the caps, paths within 4,096 characters), and review URIs round-trip ids with any character.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChatToHost, parseInspectorToHost } from '../../src/protocol/validation';
import { parseReviewPath, reviewPath } from '../../src/extension/reviewUris';

test('the chat review intents parse only in their exact shapes', () => {
  assert.deepEqual(parseChatToHost({ type: 'openDiff', toolUseId: 'toolu_1' }), { type: 'openDiff', toolUseId: 'toolu_1' });
  assert.deepEqual(parseChatToHost({ type: 'previewRestore', messageId: 'u1' }), { type: 'previewRestore', messageId: 'u1' });
  assert.deepEqual(parseChatToHost({ type: 'restoreFiles', messageId: 'u1' }), { type: 'restoreFiles', messageId: 'u1' });
  assert.deepEqual(parseChatToHost({ type: 'openRestoreDiff', messageId: 'u1', path: 'src/a.ts' }), {
    type: 'openRestoreDiff',
    messageId: 'u1',
    path: 'src/a.ts',
  });
  assert.deepEqual(parseChatToHost({ type: 'undoCompaction' }), { type: 'undoCompaction' });
  for (const bad of [
    { type: 'openDiff' },
    { type: 'openDiff', toolUseId: '' },
    { type: 'openDiff', toolUseId: 'x'.repeat(201) },
    { type: 'openDiff', toolUseId: 't', extra: 1 },
    { type: 'previewRestore', messageId: 7 },
    { type: 'restoreFiles', messageId: 'u1', path: 'a' },
    { type: 'openRestoreDiff', messageId: 'u1' },
    { type: 'openRestoreDiff', messageId: 'u1', path: 'p'.repeat(4_097) },
    { type: 'undoCompaction', id: 'x' },
  ]) {
    assert.equal(parseChatToHost(bad), null, JSON.stringify(bad).slice(0, 80));
  }
});

test("the inspector's restore intent names a message id", () => {
  assert.deepEqual(parseInspectorToHost({ type: 'restoreFiles', id: 'u3' }), { type: 'restoreFiles', id: 'u3' });
  assert.equal(parseInspectorToHost({ type: 'restoreFiles' }), null);
  assert.equal(parseInspectorToHost({ type: 'restoreFiles', id: 'u3', messageId: 'u3' }), null);
});

test('review URIs round-trip the id (encoded) and the path; the empty side is a query', () => {
  const path = reviewPath('toolu_01/ab%c', 'src/deep/a b.ts');
  assert.equal(path, '/toolu_01%2Fab%25c/src/deep/a b.ts');
  assert.deepEqual(parseReviewPath(path, ''), { id: 'toolu_01/ab%c', path: 'src/deep/a b.ts', empty: false });
  assert.deepEqual(parseReviewPath(path, 'before'), { id: 'toolu_01/ab%c', path: 'src/deep/a b.ts', empty: true });
  assert.equal(parseReviewPath('/only-an-id', ''), null);
  assert.equal(parseReviewPath('/%E0%A4%A/x', ''), null, 'a malformed escape is not a review URI');
});
