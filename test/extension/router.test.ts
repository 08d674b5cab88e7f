import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRouter, reportFailure, type FailureSink, type MessageHandlers } from '../../src/extension/router';

type Msg = { type: 'ping' } | { type: 'open'; path: string } | { type: 'boom' };

function recordingSink(): FailureSink & { errors: string[]; shown: string[] } {
  const errors: string[] = [];
  const shown: string[] = [];
  return { errors, shown, error: (m) => void errors.push(m), showError: (m) => void shown.push(m) };
}

test('the router calls the handler of the message type with the message', async () => {
  const seen: string[] = [];
  const sink = recordingSink();
  const route = createRouter<Msg>(
    'Test view',
    {
      ping: () => void seen.push('ping'),
      open: async (msg) => void seen.push(`open ${msg.path}`),
      boom: () => void seen.push('boom'),
    },
    sink,
  );
  await route({ type: 'ping' });
  await route({ type: 'open', path: '/tmp/t.jsonl' });
  assert.deepEqual(seen, ['ping', 'open /tmp/t.jsonl']);
  assert.deepEqual(sink.errors, []);
});

test('a rejected handler is logged with its source and type and shown to the user; the route promise resolves', async () => {
  const sink = recordingSink();
  const handlers: MessageHandlers<Msg> = {
    ping: () => undefined,
    open: async (msg) => {
      throw new Error(`ENOENT: no such file, open '${msg.path}'`);
    },
    boom: () => undefined,
  };
  const route = createRouter<Msg>('Chat view', handlers, sink);
  await route({ type: 'open', path: '/gone/transcript.jsonl' });
  assert.equal(sink.errors.length, 1);
  assert.match(sink.errors[0]!, /^Chat view: 'open' failed: Error: ENOENT: no such file, open '\/gone\/transcript\.jsonl'/);
  assert.deepEqual(sink.shown, ["Splitpoint: ENOENT: no such file, open '/gone/transcript.jsonl'"]);
});

test('a handler that throws synchronously is reported the same way', async () => {
  const sink = recordingSink();
  const route = createRouter<Msg>(
    'Inspector',
    {
      ping: () => undefined,
      open: () => undefined,
      boom: () => {
        throw 'not an Error';
      },
    },
    sink,
  );
  await route({ type: 'boom' });
  assert.deepEqual(sink.errors, ["Inspector: 'boom' failed: not an Error"]);
  assert.deepEqual(sink.shown, ['Splitpoint: not an Error']);
});

test('a failing handler never becomes an unhandled rejection, even when the call site drops the promise', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const sink = recordingSink();
    const route = createRouter<Msg>(
      'Chat view',
      { ping: () => Promise.reject(new Error('late')), open: () => undefined, boom: () => undefined },
      sink,
    );
    void route({ type: 'ping' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(unhandled, []);
    assert.equal(sink.shown.length, 1);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('reportFailure survives a sink that throws (an output channel disposed at shutdown)', () => {
  assert.doesNotThrow(() =>
    reportFailure('Chat view', 'send', new Error('x'), {
      error: () => {
        throw new Error('channel closed');
      },
      showError: () => undefined,
    }),
  );
});

test('a message type without a handler is a compile error', () => {
  // @ts-expect-error: 'boom' has no handler
  const incomplete: MessageHandlers<Msg> = { ping: () => undefined, open: () => undefined };
  // @ts-expect-error: the handler of 'open' receives only the 'open' message
  const wrongShape: MessageHandlers<Msg> = { ping: () => undefined, open: (msg: { type: 'ping' }) => void msg, boom: () => undefined };
  assert.ok(incomplete && wrongShape);
});
