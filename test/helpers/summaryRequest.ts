// Recognise a summary request on the loopback server, whichever form the summarizer sent: the standalone
// one (SUMMARY_SYSTEM_PROMPT as the system prompt) or the cached-prefix one (the conversation's own
// request whose last user turn ends with the summarize instruction).
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/pipeline/summarize';
import { SUMMARY_REQUEST_HEADING } from '../../src/core/pipeline/summaryRequest';
import type { WireBlock, WireMessage } from '../loopback/anthropic-server';

/** The text of the instruction turn of a cached-prefix summary request, or undefined. */
export function summaryInstructionOf(body: { messages?: readonly WireMessage[] }): string | undefined {
  const last = body.messages?.at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return undefined;
  const block = (last.content as WireBlock[]).at(-1);
  const text = block && block.type === 'text' ? String(block.text ?? '') : '';
  return text.startsWith(SUMMARY_REQUEST_HEADING) ? text : undefined;
}

export function isStandaloneSummaryRequest(body: { system?: unknown }): boolean {
  return body.system === SUMMARY_SYSTEM_PROMPT;
}

export function isSummaryRequest(body: { system?: unknown; messages?: readonly WireMessage[] }): boolean {
  return isStandaloneSummaryRequest(body) || summaryInstructionOf(body) !== undefined;
}
