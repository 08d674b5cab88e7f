// The key gate and the settings reading wired to the real controller and SDK against loopback
// servers: a workspace value of splitpoint.baseUrl never receives a request; a base URL the user
// did not allow receives nothing (the chat says why); once allowed, requests go there with the key.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { AgentController } from '../../src/agent/service/controller';
import { DEFAULT_HOST_SETTINGS, settingsFrom } from '../../src/settings/hostSettings';
import { ApiKeyGate } from '../../src/extension/baseUrlConsent';
import type { SettingsSource } from '../../src/settings/settingsModel';
import { LoopbackAnthropic } from '../loopback/anthropic-server';

const KEY = 'sk-ant-gate-0123456789';

interface Rig {
  controller: AgentController;
  asked: string[];
  answer(yes: boolean): void;
  close(): Promise<void>;
}

/** A controller whose settings come from `source` (read again on every key request, as the extension does). */
async function rig(source: SettingsSource, servers: LoopbackAnthropic[]): Promise<Rig> {
  const storage = mkdtempSync(join(tmpdir(), 'sp-gate-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-gate-ws-'));
  writeFileSync(join(workspace, 'a.txt'), 'hello\n');
  const asked: string[] = [];
  const stored: string[] = [];
  let yes = false;
  const gate = new ApiKeyGate({
    getKey: async () => KEY,
    baseUrl: () => settingsFrom(source).baseUrl,
    env: {},
    consents: { list: () => stored, add: async (o) => void stored.push(o) },
    ask: async (url) => {
      asked.push(url);
      return yes;
    },
  });
  const controller = new AgentController({
    workspaceRoot: workspace,
    storageDir: storage,
    settings: { ...settingsFrom(source), model: 'claude-test', autoCompact: { ...DEFAULT_HOST_SETTINGS.autoCompact, enabled: false } },
    getApiKey: () => gate.key(),
    trusted: true,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    createClient: (apiKey, url) => new Anthropic({ apiKey, baseURL: url, maxRetries: 0 }),
  });
  return {
    controller,
    asked,
    answer: (a) => (yes = a),
    async close() {
      controller.dispose();
      for (const s of servers) await s.close();
    },
  };
}

function userAndWorkspace(user: Record<string, unknown>, workspace: Record<string, unknown>): SettingsSource {
  const merged = (k: string): unknown => (k in workspace ? workspace[k] : user[k]);
  return {
    get: ((k: string, d?: unknown) => merged(k) ?? d) as SettingsSource['get'],
    inspect: (k: string) => ({ key: `splitpoint.${k}`, globalValue: user[k], workspaceValue: workspace[k] }) as never,
  };
}

test('without consent for a non-Anthropic base URL no request is made and the chat says why', async () => {
  const server = new LoopbackAnthropic();
  const other = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  const otherURL = (await other.start()).baseURL;
  const user: Record<string, unknown> = { baseUrl: baseURL };
  const source = userAndWorkspace(user, {});
  const r = await rig(source, [server, other]);
  const lastItem = () => r.controller.chatState(true).items.at(-1) as { kind: string; message?: string } | undefined;
  try {
    await r.controller.send('Hello?');
    assert.deepEqual(r.asked, [baseURL]);
    assert.equal(server.requests.length, 0, 'nothing reached the server');
    assert.equal(lastItem()?.kind, 'error');
    assert.match(lastItem()?.message ?? '', /^Nothing was sent/);
    assert.ok(lastItem()?.message?.includes(baseURL), 'the chat names the URL');

    // Allowed: the request goes there, with the key; the question is not asked again.
    r.answer(true);
    for (const prompt of ['Hello again?', 'Once more?', 'And again?']) {
      server.queue.text(`Answer to ${prompt} ${'a long answer. '.repeat(1500)}`);
      await r.controller.send(prompt);
    }
    assert.equal(server.messageRequests[0]!.apiKey, KEY, 'the key went with the request');
    assert.equal(r.asked.length, 2, 'asked once per origin');
    assert.equal(r.controller.session.messages.length, 6);

    // The user points the base URL elsewhere and declines: neither a summary nor a prompt reaches it.
    user.baseUrl = otherURL;
    r.controller.updateSettings({ ...settingsFrom(source), model: 'claude-test' });
    r.answer(false);
    const outcome = await r.controller.compactNow({ strategy: 'recursive-summarization', params: { maxEventsToKeep: 2, overlapSize: 1 } });
    assert.equal(outcome.ok, false);
    assert.equal((outcome as { reason?: string }).reason, 'summary-failed', (outcome as { message?: string }).message);
    assert.equal(r.controller.session.messages.length, 6, 'the history is unchanged');
    await r.controller.send('Still there?');
    assert.equal(other.requests.length, 0, 'nothing reached the new URL');
    assert.deepEqual(r.asked.slice(2), [otherURL, otherURL]);
    assert.ok(lastItem()?.message?.includes(otherURL));
  } finally {
    await r.close();
  }
});

test("a workspace's splitpoint.baseUrl never receives a request: the user's base URL does", async () => {
  const userServer = new LoopbackAnthropic();
  const workspaceServer = new LoopbackAnthropic();
  const user = (await userServer.start()).baseURL;
  const hostile = (await workspaceServer.start()).baseURL;
  const r = await rig(userAndWorkspace({ baseUrl: user }, { baseUrl: hostile }), [userServer, workspaceServer]);
  try {
    r.answer(true);
    userServer.queue.text('Hi.');
    await r.controller.send('Hello?');
    assert.deepEqual(r.asked, [user], 'only the user URL was ever asked about');
    assert.ok(userServer.messageRequests.length >= 1, 'the user server answered');
    assert.equal(workspaceServer.requests.length, 0, 'no request (so no key) reached the workspace URL');
  } finally {
    await r.close();
  }
});
