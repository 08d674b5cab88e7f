// The approval broker alone: the agent's requests, the user's decisions (also before the agent
// asks), abort, and reject-all on stop or a new chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalBroker } from '../../src/agent/loop/approvalBroker';
import type { ApprovalRequest } from '../../src/agent/tools';

function broker(awaiting: string[] = []) {
  const warnings: string[] = [];
  const b = new ApprovalBroker({ isAwaitingApproval: (id) => awaiting.includes(id), log: { warn: (m) => warnings.push(m) } });
  return { b, warnings };
}

const req = (toolUseId: string): ApprovalRequest => ({ toolUseId, tool: 'edit_file', title: `Edit ${toolUseId}` });

test('a decision resolves the pending request of that tool call only', async () => {
  const { b } = broker();
  const first = b.request(req('t1'), new AbortController().signal);
  const second = b.request(req('t2'), new AbortController().signal);
  assert.equal(b.pendingCount, 2);
  assert.equal(b.decide('t2', { approved: false, reason: 'no' }), 'resolved');
  assert.deepEqual(await second, { approved: false, reason: 'no' });
  assert.equal(b.decide('t1', { approved: true }), 'resolved');
  assert.deepEqual(await first, { approved: true });
  assert.equal(b.pendingCount, 0);
});

test('a decision that arrives before the agent asks is kept for the card awaiting approval and answers the request at once', async () => {
  const { b, warnings } = broker(['t1']);
  assert.equal(b.decide('t1', { approved: true }), 'early');
  assert.deepEqual(await b.request(req('t1'), new AbortController().signal), { approved: true });
  assert.equal(b.pendingCount, 0);
  assert.deepEqual(warnings, []);
  // Used once: the next request for the same id waits again.
  const again = b.request(req('t1'), new AbortController().signal);
  assert.equal(b.pendingCount, 1);
  b.decide('t1', { approved: false, reason: 'second' });
  assert.deepEqual(await again, { approved: false, reason: 'second' });
});

test('a decision for a call that is neither pending nor awaiting approval is ignored with a warning', () => {
  const { b, warnings } = broker([]);
  assert.equal(b.decide('ghost', { approved: true }), 'ignored');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /ghost/);
});

test('rejectAll rejects every pending request with the reason and forgets early decisions', async () => {
  const { b } = broker(['early']);
  const a = b.request(req('a'), new AbortController().signal);
  const c = b.request(req('c'), new AbortController().signal);
  b.decide('early', { approved: true });
  b.rejectAll('The chat was closed.');
  assert.deepEqual(await a, { approved: false, reason: 'The chat was closed.' });
  assert.deepEqual(await c, { approved: false, reason: 'The chat was closed.' });
  assert.equal(b.pendingCount, 0);
  // The early approval is gone: the agent's later request waits instead of being approved.
  const later = b.request(req('early'), new AbortController().signal);
  assert.equal(b.pendingCount, 1);
  b.rejectAll('Stopped by the user.');
  assert.deepEqual(await later, { approved: false, reason: 'Stopped by the user.' });
});

test('an aborted signal rejects the request (already aborted, or aborted while waiting)', async () => {
  const { b } = broker();
  const done = new AbortController();
  done.abort();
  assert.deepEqual(await b.request(req('x'), done.signal), { approved: false, reason: 'Stopped by the user.' });
  const ac = new AbortController();
  const waiting = b.request(req('y'), ac.signal);
  ac.abort();
  assert.deepEqual(await waiting, { approved: false, reason: 'Stopped by the user.' });
  assert.equal(b.pendingCount, 0);
  // A late click finds nothing pending.
  assert.equal(b.decide('y', { approved: true }), 'ignored');
});
