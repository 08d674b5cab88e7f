// The models the picker offers: the API's models endpoint (GET /v1/models through the SDK, every page,
// against the configured base URL), or a built-in list when the endpoint cannot be reached (no key,
// offline, an error), with the reason. Each model's context window comes from the caller (the table
// in core/cost.ts, overridable by the settings). Entries whose id is not a short printable string are
// dropped: the id reaches the picker and the `splitpoint.model` setting.
import { anthropicSdk } from './sdks';
import { toLlmError } from './anthropicClient';

export interface ModelChoice {
  id: string;
  displayName: string;
  contextWindow: number;
}

export interface ModelList {
  models: ModelChoice[];
  /** 'api': what the models endpoint listed; 'builtin': the fallback list (`error` says why). */
  source: 'api' | 'builtin';
  error?: string;
}

/** The fallback list (current Claude models by their aliases), newest first. */
export const BUILTIN_MODELS: ReadonlyArray<{ id: string; displayName: string }> = [
  { id: 'claude-opus-4-5', displayName: 'Claude Opus 4.5' },
  { id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5' },
  { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5' },
  { id: 'claude-opus-4-1', displayName: 'Claude Opus 4.1' },
  { id: 'claude-sonnet-4-0', displayName: 'Claude Sonnet 4' },
  { id: 'claude-3-7-sonnet-latest', displayName: 'Claude Sonnet 3.7' },
  { id: 'claude-3-5-haiku-latest', displayName: 'Claude Haiku 3.5' },
];

/** At most this many entries of the endpoint are read, usable or not (the SDK follows has_more / last_id page by page). */
const MAX_MODELS = 500;

/** A model id or display name longer than this is not one (real ids are under 40 characters). */
export const MAX_MODEL_ID_CHARS = 200;

/** Control, format (bidi) and line/paragraph separator characters: none belongs in a model id or name. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * An endpoint's model id (or display name) as the picker and the setting may take it: a non-empty
 * string of at most MAX_MODEL_ID_CHARS printable characters, else undefined (the entry is dropped).
 */
export function modelIdOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_MODEL_ID_CHARS) return undefined;
  return UNPRINTABLE.test(value) || value.trim() !== value ? undefined : value;
}

export interface ListModelsOptions {
  apiKey: string | undefined;
  baseURL?: string;
  /** The context window to show for a model id. */
  windowFor: (id: string) => number;
  timeoutMs?: number;
}

export async function listModels(o: ListModelsOptions): Promise<ModelList> {
  const choice = (id: string, displayName: string): ModelChoice => ({ id, displayName, contextWindow: o.windowFor(id) });
  const builtin = (error: string): ModelList => ({
    models: BUILTIN_MODELS.map((m) => choice(m.id, m.displayName)),
    source: 'builtin',
    error,
  });
  if (!o.apiKey) return builtin('no API key is set');
  try {
    const client = new (anthropicSdk())({ apiKey: o.apiKey, baseURL: o.baseURL, maxRetries: 0, timeout: o.timeoutMs ?? 10_000 });
    const models: ModelChoice[] = [];
    let listed = 0;
    for await (const m of client.models.list({ limit: 100 })) {
      const id = modelIdOf(m.id);
      if (id !== undefined && !models.some((x) => x.id === id)) models.push(choice(id, modelIdOf(m.display_name) ?? id));
      if (++listed >= MAX_MODELS) break;
    }
    return models.length > 0 ? { models, source: 'api' } : builtin('the models endpoint listed no usable models');
  } catch (e) {
    return builtin(toLlmError(e).message);
  }
}
