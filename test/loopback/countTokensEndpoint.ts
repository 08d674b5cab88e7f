/**
 * `POST /v1/messages/count_tokens`: `{ "input_tokens": N }`. Never consumes `queue`'s replies and does
 * not enforce the context window (it exists to measure prompts, including oversized ones). Its
 * failures are scripted in `countQueue` (errors, hangs and drops only; a valid request takes the next
 * one, else it is counted).
 */
import type { ManagedContext } from './contextManagement';
import { sendJson, type Exchange } from './exchange';
import { playReply, type ReplyPlayer } from './playReply';
import type { ReplyQueue } from './replies';
import type { ValidRequest } from './wire';

/** Answer a validated count_tokens request (`managed`: its server-side context management). */
export async function answerCountTokens(player: ReplyPlayer, countQueue: ReplyQueue, ex: Exchange, managed: ManagedContext): Promise<void> {
  const record = ex.record;
  const inputTokens = managed.inputTokens;
  const failure = countQueue.shift();
  if (failure) {
    if (failure.kind === 'message') throw new Error('countQueue holds failures only (error, hang, drop), not messages');
    record.source = 'queue';
    return await playReply(player, ex, Object.assign(record, { inputTokens }) as ValidRequest, failure);
  }
  record.source = 'count_tokens';
  const cm = managed.response ? { context_management: { original_input_tokens: managed.originalInputTokens } } : {};
  sendJson(ex.res, 200, { input_tokens: inputTokens, ...cm }, { 'request-id': record.requestId });
  record.status = 200;
}
