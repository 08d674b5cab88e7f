/** Playing a scripted reply on an exchange: an HTTP error, a hang, a dropped socket, or a message (JSON or SSE). */
import { errorBody, sendJson, type Exchange } from './exchange';
import { composeMessage, playJson, type ReplyCounting } from './messageReply';
import type { CacheLayout, ServedCache } from './promptCache';
import type { ScriptedReply } from './replies';
import { streamEvents, writeStream } from './sseStream';
import type { ValidRequest } from './wire';

/** What playing a reply needs of the server. */
export interface ReplyPlayer extends ReplyCounting {
  /** Send one `ping` event after the first content_block_start. */
  ping: boolean;
  /** Read and write the prompt cache for an answered request. */
  applyCache(request: ValidRequest, layout: CacheLayout): ServedCache;
}

export async function playReply(
  player: ReplyPlayer,
  ex: Exchange,
  request: ValidRequest,
  script: ScriptedReply,
  layout?: CacheLayout,
): Promise<void> {
  await ex.sleep(script.delayMs ?? 0);
  if (ex.closed) return;
  switch (script.kind) {
    case 'hang':
      await ex.whenClosed;
      return;
    case 'drop':
      ex.res.destroy();
      return;
    case 'error': {
      const headers: Record<string, string> = { 'request-id': ex.record.requestId, ...(script.headers ?? {}) };
      if (script.retryAfter !== undefined) headers['retry-after'] = String(script.retryAfter);
      if (script.retryAfterMs !== undefined) headers['retry-after-ms'] = String(script.retryAfterMs);
      if (script.shouldRetry !== undefined) headers['x-should-retry'] = String(script.shouldRetry);
      ex.record.status = script.status;
      sendJson(ex.res, script.status, errorBody(script.type, script.message, ex.record.requestId), headers);
      return;
    }
    case 'message': {
      // Only a request that is answered reads and writes the cache (as an error, hang or drop does not).
      if (layout) request.cache = player.applyCache(request, layout);
      const m = composeMessage(request, script, player);
      if (request.body.stream === true) return writeStream(ex, streamEvents(m, script, player.ping), script);
      return playJson(ex, m, script);
    }
  }
}
