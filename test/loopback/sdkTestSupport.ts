// Shared by the loopback server's tests through the real @anthropic-ai/sdk.
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic } from './anthropic-server';

export const MODEL = 'claude-test-model';

/** A loopback server and a real SDK client on it (no retries), for the enclosing file or describe: started before, reset before each test, closed after. */
export function loopbackWithSdk(): { server: LoopbackAnthropic; client: Anthropic; baseURL: string } {
  const server = new LoopbackAnthropic({ contextWindows: { 'tiny-model': 40 } });
  const sdk = { server, client: undefined as unknown as Anthropic, baseURL: '' };
  before(async () => {
    sdk.baseURL = (await server.start()).baseURL;
    sdk.client = new Anthropic({ apiKey: 'test', baseURL: sdk.baseURL, maxRetries: 0 });
  });
  after(() => server.close());
  beforeEach(() => server.reset());
  return sdk;
}

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/** Sends a body the SDK's types would not allow (the SDK does not validate at runtime). */
export function raw(body: Record<string, unknown>): CreateParams {
  return body as unknown as CreateParams;
}

/** An SSE event's data as parsed from the raw wire (only the fields the tests read). */
export interface WireEvent {
  type: string;
  index?: number;
  message?: { stop_reason: unknown; content: unknown[]; usage: { input_tokens: number } };
  content_block?: Record<string, unknown>;
  delta?: { type?: string; stop_reason?: string; partial_json?: string };
  usage?: { output_tokens: number };
}

export async function waitFor(cond: () => boolean, timeoutMs = 2000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) assert.fail('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
