/**
 * The streaming answer (`stream: true`): a composed Message as the API's SSE events (`message_start`,
 * per block `content_block_start` / `content_block_delta`… / `content_block_stop`, one `ping` after
 * the first `content_block_start`, `message_delta` and `message_stop`), and the writer that sends them
 * with the script's delays, stalls, drops and mid-stream errors.
 */
import { errorBody, type Exchange } from './exchange';
import type { BuiltBlock, ComposedMessage, MessageScript } from './messageReply';

type StreamEvent = Record<string, unknown>;

/** Every SSE event of the reply, in order (`ping`: send one after the first content_block_start). */
export function streamEvents(m: ComposedMessage, script: MessageScript, ping: boolean): StreamEvent[] {
  const chunks = { text: Math.max(1, script.textChunkChars ?? 16), json: Math.max(1, script.jsonChunkChars ?? 12) };
  const events: StreamEvent[] = [messageStart(m, script.wireUsage)];
  if (ping && m.blocks.length === 0) events.push({ type: 'ping' });
  m.blocks.forEach((built, index) => {
    events.push(...blockEvents(built, index, ping && index === 0, chunks));
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: m.stopReason, stop_sequence: null },
    ...m.cm,
    usage:
      script.wireUsage !== undefined
        ? (script.wireUsage ?? {})
        : {
            input_tokens: m.usage.input_tokens,
            cache_creation_input_tokens: m.usage.cache_creation_input_tokens,
            cache_read_input_tokens: m.usage.cache_read_input_tokens,
            output_tokens: m.usage.output_tokens,
          },
  });
  events.push({ type: 'message_stop' });
  return events;
}

function messageStart(m: ComposedMessage, wireUsage: MessageScript['wireUsage']): StreamEvent {
  const start = {
    type: 'message_start',
    message: {
      id: m.id,
      type: 'message',
      role: 'assistant',
      model: m.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: m.usage.input_tokens,
        cache_creation_input_tokens: m.usage.cache_creation_input_tokens,
        cache_read_input_tokens: m.usage.cache_read_input_tokens,
        cache_creation: m.cacheCreation,
        output_tokens: 1,
        service_tier: 'standard',
      } as Record<string, unknown> | undefined,
    },
  };
  if (wireUsage === null) delete start.message.usage;
  else if (wireUsage !== undefined) start.message.usage = wireUsage;
  return start;
}

/** One block's start and deltas (its stop is added by the caller). */
function blockEvents(built: BuiltBlock, index: number, ping: boolean, chunks: { text: number; json: number }): StreamEvent[] {
  const b = built.script;
  const events: StreamEvent[] = [];
  const delta = (d: Record<string, unknown>) => events.push({ type: 'content_block_delta', index, delta: d });
  if (b.type === 'text') {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    if (ping) events.push({ type: 'ping' });
    for (const part of splitChars(b.text, chunks.text)) delta({ type: 'text_delta', text: part });
  } else if (b.type === 'thinking') {
    events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    if (ping) events.push({ type: 'ping' });
    for (const part of splitChars(b.thinking, chunks.text)) delta({ type: 'thinking_delta', thinking: part });
    delta({ type: 'signature_delta', signature: b.signature });
  } else if (b.type === 'compaction') {
    events.push({ type: 'content_block_start', index, content_block: { type: 'compaction', content: null, encrypted_content: null } });
    delta({ type: 'compaction_delta', content: b.content, encrypted_content: null });
  } else {
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
    if (ping) events.push({ type: 'ping' });
    // The real stream opens with an empty partial_json, then the JSON text in pieces.
    delta({ type: 'input_json_delta', partial_json: '' });
    for (const part of splitChars(JSON.stringify(b.input ?? {}), chunks.json)) delta({ type: 'input_json_delta', partial_json: part });
  }
  return events;
}

/** Send the events as SSE, honouring the script's chunk delay, stall, drop and stream error. */
export async function writeStream(ex: Exchange, events: StreamEvent[], script: MessageScript): Promise<void> {
  ex.record.status = 200;
  ex.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': ex.record.requestId,
    ...(script.headers ?? {}),
  });
  ex.res.flushHeaders();
  const chunkDelay = script.chunkDelayMs ?? 0;
  for (let i = 0; i <= events.length; i++) {
    if (ex.closed) return;
    if (script.stallAfterEvents === i) {
      await ex.whenClosed;
      return;
    }
    if (script.dropAfterEvents === i) {
      ex.res.destroy();
      return;
    }
    if (script.streamError && script.streamError.afterEvents === i) {
      const { type, message } = script.streamError;
      ex.res.end(sse('error', errorBody(type, message, ex.record.requestId)));
      return;
    }
    if (i === events.length) break;
    if (i > 0) await ex.sleep(chunkDelay);
    if (ex.closed) return;
    const event = events[i]!;
    ex.res.write(sse(String(event.type), event));
  }
  ex.res.end();
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Split into pieces of at most `size` code points (never splitting a surrogate pair). */
function splitChars(text: string, size: number): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}
