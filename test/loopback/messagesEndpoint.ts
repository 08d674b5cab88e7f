/**
 * `POST /v1/messages`, once the request has passed authentication and validation: the context window,
 * a server-side compaction opening the reply, then the script: the next queued reply, else the
 * responder's, else the fallback (`whenEmpty: 'error'` (default) → 500 `api_error` with
 * `x-should-retry: false`, naming the request; `'echo'` → "echo: <last user text>").
 */
import { compactedBody, defaultCompactionSummary, type ManagedContext } from './contextManagement';
import { failExchange, type Exchange } from './exchange';
import type { Responder } from './options';
import { playReply, type ReplyPlayer } from './playReply';
import type { CacheLayout } from './promptCache';
import { reply, type ReplyQueue, type ScriptBlock, type ScriptedReply } from './replies';
import { probePrompt, probeReplyText } from './probeAnswers';
import { lastUserText } from './tokens';
import type { MessagesRequestBody, RecordedRequest, ValidRequest } from './wire';

/** What the Messages endpoint needs of the server (a snapshot taken for one request). */
export interface MessagesServer extends ReplyPlayer {
  queue: ReplyQueue;
  responder: Responder | undefined;
  compactionSummaries: Array<string | null>;
  whenEmpty: 'error' | 'echo';
  /** 'answer': a probe request (probeAnswers.ts) is answered from its own text, before the queue; 'script': like any other. */
  probes: 'answer' | 'script';
  countTokens(body: MessagesRequestBody): number;
  contextWindowFor(model: string): number;
  cacheLayout(body: MessagesRequestBody): CacheLayout | { error: string };
}

/** Answer a validated Messages request (`layout`: its prompt-cache layout; `managed`: its context management). */
export async function answerMessages(server: MessagesServer, ex: Exchange, managed: ManagedContext, layout: CacheLayout): Promise<void> {
  const valid = ex.record as ValidRequest;
  valid.inputTokens = managed.inputTokens;
  valid.managed = managed;
  const window = server.contextWindowFor(valid.body.model);
  if (valid.inputTokens > window) {
    return failExchange(
      ex,
      400,
      'invalid_request_error',
      `prompt is too long: ${valid.inputTokens} tokens > ${window} maximum`,
      'validation',
    );
  }

  const summary = managed.compaction
    ? server.compactionSummaries.length > 0
      ? server.compactionSummaries.shift()!
      : defaultCompactionSummary(managed.compaction)
    : undefined;
  if (summary) valid.inputTokens = server.countTokens(compactedBody(managed.body, summary));
  const compaction: ScriptBlock[] = summary === undefined ? [] : [{ type: 'compaction', content: summary }];
  // pause_after_compaction: the compaction block alone (the scripted reply waits for the next request).
  const paused = managed.compaction?.pause && summary ? reply.message(compaction, { stopReason: 'compaction' }) : undefined;
  let script = await chooseScript(server, valid, paused);
  if (script.kind === 'message' && compaction.length > 0 && script.content[0]?.type !== 'compaction')
    script = { ...script, content: [...compaction, ...script.content] };
  // The cache sees what the model saw: the body after server-side context management.
  const served = server.cacheLayout(summary ? compactedBody(managed.body, summary) : managed.body);
  await playReply(server, ex, valid, script, 'error' in served ? layout : served);
}

/** The reply to play (`paused`: a pause_after_compaction reply, which takes the queue's place); records its source. */
async function chooseScript(server: MessagesServer, valid: ValidRequest, paused: ScriptedReply | undefined): Promise<ScriptedReply> {
  const probes = paused || server.probes !== 'answer' ? undefined : probePrompt(valid.body);
  if (probes !== undefined) {
    valid.source = 'probes';
    return reply.text(probeReplyText(valid.body, probes));
  }
  let script = paused ?? server.queue.shift();
  let source: RecordedRequest['source'] = 'queue';
  if (!script && server.responder) {
    script = await server.responder(valid);
    source = 'responder';
  }
  if (!script) {
    source = 'fallback';
    script = fallbackReply(server.whenEmpty, valid);
  }
  valid.source = source;
  return script;
}

function fallbackReply(whenEmpty: 'error' | 'echo', valid: ValidRequest): ScriptedReply {
  if (whenEmpty === 'echo') return reply.text(`echo: ${lastUserText(valid.body)}`);
  const last = lastUserText(valid.body).slice(0, 80);
  return reply.error(
    500,
    'api_error',
    `LoopbackAnthropic: no scripted reply for request #${valid.index} ` +
      `(POST /v1/messages, last user text: ${JSON.stringify(last)}); queue a reply or set a responder`,
    { shouldRetry: false },
  );
}
