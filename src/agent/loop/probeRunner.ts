// "Check this compaction" (issue 22), the model call: one request carrying the compacted context as the
// agent sends it (its system prompt, tool definitions and the micro-compacted messages with the pins)
// and the probe questions as the last user turn (core's probeQuestionsPrompt), to the probes model,
// through the same @anthropic-ai/sdk client the agent uses. tool_choice is `none`: the model answers
// in text. The answers are scored by core (parseProbeAnswers); a reply that holds no JSON, or answers
// ids that are no question of the check, is said so in plain words.
import type Anthropic from '@anthropic-ai/sdk';
import { parseProbeAnswers, priceLookup, probeQuestionsPrompt, type ApiMessage, type Probe, type ProbeAnswer } from '../../core';
import { toLlmError } from './anthropicClient';
import { validUsage } from './replyUsage';

/** The cheapest model of a session model's family: Claude → Haiku 4.5, OpenAI's → GPT-5 mini. */
export function defaultProbeModel(sessionModel: string): string {
  const m = sessionModel.toLowerCase();
  if (/^(gpt-|o\d|codex)/.test(m)) return 'gpt-5-mini';
  return 'claude-haiku-4-5';
}

/** The probes model: the setting when set, else the cheapest of the session's family. */
export function probeModelFor(setting: string | undefined, sessionModel: string): string {
  return setting?.trim() || defaultProbeModel(sessionModel);
}

/** Output tokens a check is allowed (an id and a short answer per probe) and the estimate of what it writes. */
export function probeMaxTokens(probes: number): number {
  return Math.min(4_096, 256 + probes * 80);
}
const ESTIMATED_OUTPUT_PER_PROBE = 40;

/** What a check is estimated to cost before it runs: input tokens at the probes model's input price, plus a short answer per probe. */
export function estimateProbeCost(model: string, inputTokens: number, probes: number): number {
  const price = priceLookup(model).price;
  return (inputTokens * price.input + probes * ESTIMATED_OUTPUT_PER_PROBE * price.output) / 1_000_000;
}

/** What a request reported it cost (uncached input, cache reads and writes, output) at the probes model's price. */
export function probeRequestCost(model: string, u: { input: number; cacheRead: number; cacheWrite: number; output: number }): number {
  const p = priceLookup(model).price;
  return (u.input * p.input + u.cacheRead * p.cacheRead + u.cacheWrite * p.cacheWrite5m + u.output * p.output) / 1_000_000;
}

/**
 * The messages of the check: the context with the questions as the last user turn. The questions join
 * a trailing user message (tool results waiting for the model) rather than follow it; a trailing
 * assistant tool_use without its results (a run stopped mid-call) is dropped, as the API refuses it.
 */
export function probeRequestMessages(context: readonly ApiMessage[], prompt: string): ApiMessage[] {
  const messages = [...context];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && Array.isArray(last.content)) {
    const content = last.content.filter((b) => (b as { type: string }).type !== 'tool_use');
    if (content.length === 0) messages.pop();
    else messages[messages.length - 1] = { ...last, content } as ApiMessage;
  }
  const tail = messages.at(-1);
  const question = { type: 'text' as const, text: prompt };
  if (tail?.role === 'user') {
    const content = typeof tail.content === 'string' ? [{ type: 'text' as const, text: tail.content }] : [...tail.content];
    messages[messages.length - 1] = { ...tail, content: [...content, question] } as ApiMessage;
  } else {
    messages.push({ role: 'user', content: [question] } as ApiMessage);
  }
  return messages;
}

export interface ProbeRequest {
  client: Anthropic;
  model: string;
  system: string;
  tools: readonly Anthropic.Tool[];
  context: readonly ApiMessage[];
  probes: readonly Probe[];
  signal?: AbortSignal;
}

export type ProbeRunResult =
  { ok: true; answers: ProbeAnswer[]; costUSD: number | null; notes: string[] } | { ok: false; error: string; reply?: string };

/** Ask the probes of the model; never throws (an API error, or a reply without answers, is `ok: false`). */
export async function runProbeRequest(r: ProbeRequest): Promise<ProbeRunResult> {
  let text: string;
  let costUSD: number | null = null;
  try {
    const message = await r.client.messages.create(
      {
        model: r.model,
        max_tokens: probeMaxTokens(r.probes.length),
        system: r.system,
        ...(r.tools.length > 0 ? { tools: r.tools as Anthropic.Tool[], tool_choice: { type: 'none' } } : {}),
        messages: probeRequestMessages(r.context, probeQuestionsPrompt(r.probes)) as Anthropic.MessageParam[],
      },
      { signal: r.signal },
    );
    text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const u = validUsage(message.usage);
    if (u)
      costUSD = probeRequestCost(r.model, {
        input: u.input_tokens,
        cacheRead: u.cache_read_input_tokens,
        cacheWrite: u.cache_creation_input_tokens,
        output: u.output_tokens,
      });
  } catch (e) {
    return { ok: false, error: `The probe request failed: ${toLlmError(e).message}` };
  }
  return scoreReply(text, r.probes, costUSD);
}

/** The model's reply scored, or why it cannot be: no JSON answers at all, or none for any question asked. */
export function scoreReply(text: string, probes: readonly Probe[], costUSD: number | null): ProbeRunResult {
  const found = answerIds(text);
  const shown = JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
  if (found === null)
    return { ok: false, error: `The probes model's reply held no JSON {"answers": [{"id", "answer"}]}: ${shown}`, reply: text };
  const asked = new Set(probes.map((p) => p.id));
  const unknown = found.filter((id) => !asked.has(id));
  if (found.length > 0 && unknown.length === found.length)
    return { ok: false, error: `The probes model answered only ids that were not asked (${unknown.slice(0, 5).join(', ')}).`, reply: text };
  const notes =
    unknown.length > 0 ? [`Ignored ${unknown.length} answer(s) to ids that were not asked: ${unknown.slice(0, 5).join(', ')}.`] : [];
  return { ok: true, answers: parseProbeAnswers(text, probes), costUSD, notes };
}

/** The ids of the reply's JSON answers (in a code fence or amid prose); null when it holds no such JSON. */
export function answerIds(text: string): string[] | null {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = text.lastIndexOf('}');
    for (let stop = end; stop > start; stop = text.lastIndexOf('}', stop - 1)) {
      try {
        const parsed = JSON.parse(text.slice(start, stop + 1)) as { answers?: unknown };
        if (!Array.isArray(parsed.answers)) break;
        return parsed.answers
          .map((a) => (typeof a === 'object' && a !== null ? (a as { id?: unknown }).id : undefined))
          .filter((id): id is string => typeof id === 'string');
      } catch {
        // not JSON up to this brace: try a shorter span
      }
    }
  }
  return null;
}
