// Shared by the loopback server's tests through the real @anthropic-ai/sdk.
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';

export const MODEL = 'claude-test-model';

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
