// The API key is sent to Anthropic's API without asking; to any other base URL only after the user
// said yes to that exact origin (asked once, remembered). Without consent no key leaves the host.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiKeyGate, BaseUrlNotAllowedError, consentNeeded, effectiveBaseUrl, originOf } from '../../src/extension/baseUrlConsent';

const KEY = 'sk-ant-test-0123456789';

test('consentNeeded: Anthropic API (default, or https://api.anthropic.com with any path) needs none', () => {
  assert.equal(consentNeeded('https://api.anthropic.com', []), false);
  assert.equal(consentNeeded('https://api.anthropic.com/', []), false);
  assert.equal(consentNeeded('https://API.anthropic.com:443/v1', []), false);
});

test('consentNeeded: any other origin needs consent, look-alikes and other schemes or ports included', () => {
  for (const url of [
    'http://api.anthropic.com',
    'https://api.anthropic.com.evil.example',
    'https://api.anthropic.com:8443',
    'https://evil.example/api.anthropic.com',
    'https://user@evil.example',
    'http://127.0.0.1:8080',
    'https://proxy.corp.example/v1',
  ])
    assert.equal(consentNeeded(url, []), true, url);
});

test('consentNeeded: consent is per exact origin; a path change keeps it, a host, port or scheme change does not', () => {
  const consented = ['https://proxy.corp.example'];
  assert.equal(consentNeeded('https://proxy.corp.example/anthropic', consented), false);
  assert.equal(consentNeeded('https://proxy.corp.example:8443', consented), true);
  assert.equal(consentNeeded('http://proxy.corp.example', consented), true);
  assert.equal(consentNeeded('https://other.corp.example', consented), true);
});

test('originOf: only http(s) URLs have one; anything else is refused', () => {
  assert.equal(originOf('https://Proxy.Corp.Example:443/x?y'), 'https://proxy.corp.example');
  assert.equal(originOf('http://127.0.0.1:9/'), 'http://127.0.0.1:9');
  for (const bad of ['', 'not a url', 'file:///etc/passwd', 'javascript:alert(1)', 'ftp://x.example'])
    assert.equal(originOf(bad), undefined, bad);
});

test('effectiveBaseUrl: the setting, else ANTHROPIC_BASE_URL (as the SDK reads it), else Anthropic', () => {
  assert.equal(effectiveBaseUrl('https://a.example', { ANTHROPIC_BASE_URL: 'https://b.example' }), 'https://a.example');
  assert.equal(effectiveBaseUrl(undefined, { ANTHROPIC_BASE_URL: 'https://b.example' }), 'https://b.example');
  assert.equal(effectiveBaseUrl(undefined, {}), 'https://api.anthropic.com');
});

interface Harness {
  gate: ApiKeyGate;
  asked: string[];
  stored: string[];
  setUrl(url: string | undefined): void;
  answer(yes: boolean): void;
}

function harness(
  o: { url?: string; key?: string | undefined; consented?: string[]; env?: Record<string, string | undefined> } = {},
): Harness {
  let url = o.url;
  let yes = true;
  const asked: string[] = [];
  const stored = [...(o.consented ?? [])];
  const gate = new ApiKeyGate({
    getKey: async () => ('key' in o ? o.key : KEY),
    baseUrl: () => url,
    env: o.env ?? {},
    consents: { list: () => stored, add: async (origin) => void stored.push(origin) },
    ask: async (u) => {
      asked.push(u);
      return yes;
    },
  });
  return { gate, asked, stored, setUrl: (u) => (url = u), answer: (a) => (yes = a) };
}

test('the key goes to Anthropic without a question', async () => {
  const h = harness();
  assert.equal(await h.gate.key(), KEY);
  h.setUrl('https://api.anthropic.com/');
  assert.equal(await h.gate.key(), KEY);
  assert.deepEqual(h.asked, []);
});

test('another base URL: the user is asked once, with the URL; yes is remembered by origin', async () => {
  const h = harness({ url: 'https://proxy.corp.example/anthropic' });
  assert.equal(await h.gate.key(), KEY);
  assert.deepEqual(h.asked, ['https://proxy.corp.example/anthropic']);
  assert.deepEqual(h.stored, ['https://proxy.corp.example']);
  assert.equal(await h.gate.key(), KEY);
  assert.equal(h.asked.length, 1, 'not asked again for the same origin');
});

test('declined: no key is handed out and the error names the URL and how to proceed', async () => {
  const h = harness({ url: 'http://collector.evil.example:8080' });
  h.answer(false);
  await assert.rejects(h.gate.key(), (e: unknown) => {
    assert.ok(e instanceof BaseUrlNotAllowedError);
    assert.match(e.message, /http:\/\/collector\.evil\.example:8080/);
    assert.match(e.message, /splitpoint\.baseUrl/);
    return true;
  });
  assert.deepEqual(h.stored, [], 'a no is not remembered as a yes');
  // Asked again next time (the user may change their mind).
  h.answer(true);
  assert.equal(await h.gate.key(), KEY);
  assert.equal(h.asked.length, 2);
});

test('a changed base URL asks again', async () => {
  const h = harness({ url: 'https://one.example', consented: ['https://one.example'] });
  assert.equal(await h.gate.key(), KEY);
  assert.deepEqual(h.asked, []);
  h.setUrl('https://two.example');
  h.answer(false);
  await assert.rejects(h.gate.key(), BaseUrlNotAllowedError);
  assert.deepEqual(h.asked, ['https://two.example']);
});

test('the URL is read again after the question: a URL changed while the dialog was open is asked about too', async () => {
  let currentUrl = 'https://one.example';
  const asked: string[] = [];
  const stored: string[] = [];
  const gate = new ApiKeyGate({
    getKey: async () => KEY,
    baseUrl: () => currentUrl,
    env: {},
    consents: { list: () => stored, add: async (origin) => void stored.push(origin) },
    ask: async (u) => {
      asked.push(u);
      currentUrl = 'https://two.example'; // changed while the dialog was open
      return u === 'https://one.example';
    },
  });
  await assert.rejects(gate.key(), BaseUrlNotAllowedError);
  assert.deepEqual(asked, ['https://one.example', 'https://two.example']);
  assert.deepEqual(stored, ['https://one.example']);
});

test('concurrent requests for the same origin share one question', async () => {
  const h = harness({ url: 'https://proxy.corp.example' });
  const keys = await Promise.all([h.gate.key(), h.gate.key(), h.gate.key()]);
  assert.deepEqual(keys, [KEY, KEY, KEY]);
  assert.equal(h.asked.length, 1);
});

test('an unusable base URL is refused without asking and without handing out the key', async () => {
  for (const url of ['file:///etc/passwd', 'not a url']) {
    const h = harness({ url });
    await assert.rejects(h.gate.key(), BaseUrlNotAllowedError);
    assert.deepEqual(h.asked, []);
  }
});

test('ANTHROPIC_BASE_URL in the environment is treated like the setting', async () => {
  const h = harness({ env: { ANTHROPIC_BASE_URL: 'https://env.example' } });
  h.answer(false);
  await assert.rejects(h.gate.key(), BaseUrlNotAllowedError);
  assert.deepEqual(h.asked, ['https://env.example']);
});

test('no key stored: nothing is asked, undefined is returned (the chat asks for a key)', async () => {
  const h = harness({ url: 'https://proxy.corp.example', key: undefined });
  assert.equal(await h.gate.key(), undefined);
  assert.deepEqual(h.asked, []);
});
