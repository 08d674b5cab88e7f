// One streamed model call: provisional events as the stream arrives (text, thinking, tool calls),
// then the complete reply, what was usable when the user stopped it, or the API error.
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import type { BetaMessageStreamParams } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ContentBlock, ServerContextRequest } from '../../core';
import type { AgentErrorInfo, AgentEvent } from './agentEvents';
import { toLlmError } from './anthropicClient';
import { partialBlocks } from './replyBlocks';

export type StepOutcome =
  { kind: 'message'; message: Anthropic.Message } | { kind: 'aborted'; blocks: ContentBlock[] } | { kind: 'error'; error: AgentErrorInfo };

/** The run and the model call within it that streamed events belong to. */
export interface StepTag {
  runId: string;
  step: number;
}

/**
 * Stream one reply; events are emitted as the stream arrives. Never rejects. With `server` (a server
 * context-management strategy) the request goes through the SDK's beta messages API with its
 * `context_management` edit and beta flag; the beta stream has the same events.
 */
export async function streamModelReply(
  client: Anthropic,
  params: Anthropic.MessageStreamParams,
  tag: StepTag,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
  server?: ServerContextRequest | null,
): Promise<StepOutcome> {
  const { runId, step } = tag;
  let snapshot: Anthropic.Message | undefined;
  const completed = new Set<number>();
  try {
    const stream: MessageStream = server
      ? (client.beta.messages.stream({ ...params, ...server } as BetaMessageStreamParams, {
          signal,
        }) as unknown as MessageStream)
      : client.messages.stream(params, { signal });
    stream.on('streamEvent', (event, snap) => {
      snapshot = snap;
      switch (event.type) {
        case 'message_start':
          // An endpoint that sends no usage: the SDK would fail the stream setting output_tokens on it.
          if (typeof snap.usage !== 'object' || snap.usage === null) (snap as { usage: unknown }).usage = {};
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') {
            emit({
              type: 'tool-call-started',
              runId,
              step,
              index: event.index,
              toolUseId: event.content_block.id,
              name: event.content_block.name,
            });
          }
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') emit({ type: 'text-delta', runId, step, index: event.index, text: event.delta.text });
          else if (event.delta.type === 'thinking_delta')
            emit({ type: 'thinking-delta', runId, step, index: event.index, thinking: event.delta.thinking });
          break;
        case 'content_block_stop': {
          completed.add(event.index);
          const block = snap.content[event.index];
          if (block?.type === 'tool_use') {
            emit({ type: 'tool-call-input', runId, step, index: event.index, toolUseId: block.id, name: block.name, input: block.input });
          }
          break;
        }
      }
    });
    const message = await stream.finalMessage();
    return { kind: 'message', message };
  } catch (e) {
    if (signal.aborted) return { kind: 'aborted', blocks: partialBlocks(snapshot, completed) };
    return { kind: 'error', error: agentErrorInfo(e) };
  }
}

/** A failed model call as the user sees it; prompt-too-long says to compact. */
function agentErrorInfo(e: unknown): AgentErrorInfo {
  const err = toLlmError(e);
  const message =
    err.kind === 'prompt_too_long' ? `${err.message.replace(/\.?\s*$/, '.')} Compact the conversation, then retry.` : err.message;
  return {
    message,
    retryable: err.retryable,
    kind: err.kind,
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
  };
}
