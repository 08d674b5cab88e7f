// Shared by the chat webview test files: one harness (bundle, server, browser) per file, opening the
// chat page with a conversation, and the checks every page must pass.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem } from '../../src/protocol';
import { chatState } from './fixtures';
import { WebviewHarness, type WebviewPage } from './harness';

export type OpenOptions = Parameters<WebviewHarness['open']>[0];

export interface ChatPages {
  /** A freshly loaded chat view ('ready' posted), with nothing delivered. */
  open(opts?: OpenOptions): Promise<WebviewPage>;
  /** A freshly loaded chat view showing `items` (a 'state' delivered and rendered). */
  openWith(items: ChatItem[], over?: Parameters<typeof chatState>[1], opts?: OpenOptions): Promise<WebviewPage>;
  /** Every path the server was asked for, by any page of the file. */
  served(): readonly string[];
}

/** Starts one harness before the file's tests and closes it after them. */
export function chatPagesForFile(): ChatPages {
  let h: WebviewHarness | undefined;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });
  const harness = (): WebviewHarness => {
    if (!h) throw new Error('the webview harness did not start (see the before hook)');
    return h;
  };
  const open = (opts: OpenOptions = {}) => harness().open(opts);
  return {
    open,
    async openWith(items, over = {}, opts = {}) {
      const p = await open(opts);
      await p.deliver({ type: 'state', state: chatState(items, over) });
      await p.settle();
      return p;
    },
    served: () => harness().served,
  };
}

/** What every page must satisfy: no errors, no leaks, no violations, no stray messages. */
export async function assertClean(p: WebviewPage) {
  const probe = await p.probe();
  assert.deepEqual(p.pageErrors, [], 'no uncaught errors');
  assert.deepEqual(p.unexpectedRequests(), [], 'no requests beyond the bundle and styles');
  assert.deepEqual(p.dialogs, [], 'no dialogs');
  assert.deepEqual(probe.csp, [], 'no CSP violations');
  assert.deepEqual(p.consoleCsp, [], 'no CSP messages on the console');
  assert.deepEqual(probe.unexpectedPostMessage, [], 'nothing called window.postMessage');
  assert.equal(probe.acquired, 1, 'acquireVsCodeApi was called exactly once');
}

/** `s` in pieces of `n` characters, as a stream of deltas would bring it. */
export function chunks(s: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}
