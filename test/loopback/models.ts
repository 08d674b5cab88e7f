// The Models API of the loopback server, in the real wire format: `GET /v1/models` lists models
// newest first, paginated by `limit` (1–1000, default 20), `after_id` and `before_id`, answering
// `{ data: ModelInfo[], has_more, first_id, last_id }`; `GET /v1/models/{id}` answers one ModelInfo
// (404 not_found_error for an unknown id). Hooked into anthropic-server.ts with a few lines.

export interface LoopbackModel {
  id: string;
  display_name: string;
  /** RFC 3339 release time. */
  created_at: string;
  max_input_tokens?: number | null;
  max_tokens?: number | null;
}

/** What the server lists when its options name no models (ids as the real API lists them, newest first). */
export const DEFAULT_LOOPBACK_MODELS: readonly LoopbackModel[] = [
  { id: 'claude-opus-4-5-20251101', display_name: 'Claude Opus 4.5', created_at: '2025-11-24T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
  { id: 'claude-sonnet-4-20250514', display_name: 'Claude Sonnet 4', created_at: '2025-05-22T00:00:00Z' },
];

export type ModelsAnswer = { status: 200; body: unknown } | { status: 400 | 404; type: string; message: string };

function info(m: LoopbackModel): Record<string, unknown> {
  return {
    type: 'model',
    id: m.id,
    display_name: m.display_name,
    created_at: m.created_at,
    max_input_tokens: m.max_input_tokens ?? 200_000,
    max_tokens: m.max_tokens ?? 64_000,
  };
}

/** The answer to a GET under /v1/models (`url`: the request's path and query). */
export function answerModels(url: string, models: readonly LoopbackModel[]): ModelsAnswer {
  const u = new URL(url, 'http://loopback');
  const id = decodeURIComponent(u.pathname.slice('/v1/models/'.length));
  if (u.pathname !== '/v1/models') {
    const m = models.find((x) => x.id === id);
    return m ? { status: 200, body: info(m) } : { status: 404, type: 'not_found_error', message: `model: ${id}` };
  }
  const limitText = u.searchParams.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return { status: 400, type: 'invalid_request_error', message: 'limit: Input should be between 1 and 1000' };
  }
  const after = u.searchParams.get('after_id');
  const before = u.searchParams.get('before_id');
  let page: LoopbackModel[];
  let hasMore: boolean;
  if (before !== null) {
    const end = models.findIndex((m) => m.id === before);
    if (end < 0) return { status: 400, type: 'invalid_request_error', message: `before_id: no model ${before}` };
    page = models.slice(Math.max(0, end - limit), end);
    hasMore = end - limit > 0;
  } else {
    const start = after === null ? 0 : models.findIndex((m) => m.id === after) + 1;
    if (after !== null && start === 0) return { status: 400, type: 'invalid_request_error', message: `after_id: no model ${after}` };
    page = models.slice(start, start + limit);
    hasMore = start + limit < models.length;
  }
  return {
    status: 200,
    body: { data: page.map(info), has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null },
  };
}
