// The summary request that reuses the conversation's cached prefix: the conversation's own request as
// the agent sent it (the same system prompt, tool definitions and messages, with their cache_control
// breakpoints, so the prefix is a prompt-cache read), followed by one user turn that asks for the
// summary and names the archived messages by their place in that conversation. The tools stay in the
// request and tool_choice is left as the conversation sends it: the API invalidates the cached
// messages when tool_choice changes, so the instruction asks for text only instead.
import { blocksOf, textOf, type ApiMessage, type ContentBlock, type Message } from '../conversation/conversation';
import type { SummarizerInput } from './plan';

/** A system prompt block as sent (a text block, possibly carrying a cache breakpoint). */
export interface SystemTextBlock {
  type: 'text';
  text: string;
  [extra: string]: unknown;
}

/**
 * The conversation's request as its agent sends it, for a summary that reuses its cached prefix.
 * `messages` are the last request's messages as sent (breakpoints included), followed by the history
 * appended since (as the next request would carry it).
 */
export interface ConversationRequest {
  /** The model the conversation's request went to (its prompt cache is that model's). */
  model: string;
  system: string | readonly SystemTextBlock[];
  /** The tool definitions as sent; passed through unchanged (byte-equal JSON). */
  tools: readonly unknown[];
  messages: readonly ApiMessage[];
  /** For each session message id in the request: the index of the API message that carries it. */
  messageIndex: ReadonlyMap<string, number>;
  /** Input tokens of system + tools + messages, as the API would count them (an estimate). */
  tokens: number;
}

/** The first line of the summarize instruction turn (how tests and logs recognise a summary request). */
export const SUMMARY_REQUEST_HEADING = '=== COMPACTION REQUEST: write a summary; do not call tools or continue the task ===';

const QUOTE_CHARS = 80;

/** How a message begins, quoted on one line (at most QUOTE_CHARS characters). */
export function quoteStart(message: Pick<Message, 'content'>): string {
  const text = textOf(message).replace(/\s+/g, ' ').trim();
  if (text === '') return '(no text)';
  return `"${text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text}"`;
}

/** Where the archived messages sit in the conversation: API message indices (0-based). */
interface ArchivedRange {
  first: number;
  last: number;
  /** API messages inside [first, last] that stay verbatim (pinned). */
  keptInside: number[];
  /** Whether the conversation's first message is a prior summary being archived. */
  priorFirst: boolean;
}

function archivedRange(input: SummarizerInput, c: ConversationRequest): ArchivedRange | { unusable: string } {
  const archived = [...input.priorSummaries, ...input.toSummarize];
  if (archived.length === 0) return { unusable: 'there is nothing to summarize' };
  const archivedApi = new Set<number>();
  for (const m of archived) {
    const i = c.messageIndex.get(m.id);
    if (i === undefined) return { unusable: `archived message ${m.id} is not in the conversation as sent` };
    archivedApi.add(i);
  }
  const archivedIds = new Set(archived.map((m) => m.id));
  // An API message carrying both an archived and a kept session message cannot be named either way.
  for (const [id, i] of c.messageIndex) {
    if (archivedApi.has(i) && !archivedIds.has(id)) return { unusable: `message ${id} is kept but shares a turn with archived ones` };
  }
  const sorted = [...archivedApi].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const keptInside: number[] = [];
  for (let i = first; i <= last; i++) if (!archivedApi.has(i)) keptInside.push(i);
  const priorFirst = input.priorSummaries.some((m) => c.messageIndex.get(m.id) === 0);
  return { first, last, keptInside, priorFirst };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The instruction turn's text: which messages to summarize, what stays, the ledger, the sections, the focus. */
export function summaryInstruction(
  r: ArchivedRange,
  c: ConversationRequest,
  o: { systemPrompt: string; sections: string; ledger?: string; ledgerHeading: string; focus?: string },
): string {
  const n = c.messages.length;
  const lastMsg = c.messages[r.last];
  const range =
    r.first === 0
      ? `the first ${plural(r.last + 1, 'message')} of this conversation (messages 1 to ${r.last + 1})`
      : `messages ${r.first + 1} to ${r.last + 1} of this conversation`;
  const lines = [
    SUMMARY_REQUEST_HEADING,
    o.systemPrompt,
    `Summarize ${range}, up to and including message ${r.last + 1}, the ${lastMsg.role} message that begins ${quoteStart(lastMsg)}. ` +
      `Your summary replaces them; everything else stays as it is.`,
  ];
  if (r.priorFirst)
    lines.push(
      'Message 1 is the summary of an earlier compaction: build on it, carrying forward everything in it that ' +
        'still matters, updated with the conversation since.',
    );
  if (r.keptInside.length > 0)
    lines.push(
      r.keptInside.length === 1
        ? `Message ${r.keptInside[0] + 1} is kept verbatim (pinned): do not summarize it.`
        : `Messages ${r.keptInside.map((i) => i + 1).join(', ')} are kept verbatim (pinned): do not summarize them.`,
    );
  const tail = n - 1 - r.last;
  if (tail > 0) {
    const next = c.messages[r.last + 1];
    const [stay, them] = tail === 1 ? ['stays', 'it'] : ['stay', 'them'];
    lines.push(
      `The ${plural(tail, 'message')} after message ${r.last + 1} (from the ${next.role} message that begins ${quoteStart(next)}) ` +
        `${stay} verbatim after your summary: use ${them} as context only, do not summarize ${them}.`,
    );
  }
  const sections = [lines.join('\n')];
  if (o.ledger) sections.push(`${o.ledgerHeading}\n${o.ledger}`);
  let instructions = o.sections.replace(/^Summarize the conversation above for continuity\./, `Summarize those messages for continuity.`);
  instructions += '\nDo not call any tool: answer with the summary text only.';
  if (o.focus && o.focus.trim()) instructions += `\n\nFocus: ${o.focus.trim()}`;
  sections.push(instructions);
  return sections.join('\n\n');
}

/** The conversation's messages with the instruction as the last user turn (merged into a trailing user message). */
export function withInstructionTurn(messages: readonly ApiMessage[], instruction: string): ApiMessage[] {
  const out = [...messages];
  const turn: ContentBlock = { type: 'text', text: instruction };
  const last = out[out.length - 1];
  if (last && last.role === 'user') out[out.length - 1] = { role: 'user', content: [...blocksOf(last), turn] };
  else out.push({ role: 'user', content: [turn] });
  return out;
}

/** The cached-prefix summary request's messages and instruction, or why it cannot be used. */
export function cachedPrefixMessages(
  input: SummarizerInput,
  c: ConversationRequest,
  o: { systemPrompt: string; sections: string; ledger?: string; ledgerHeading: string; focus?: string },
): { messages: ApiMessage[]; instruction: string } | { unusable: string } {
  if (c.messages.length === 0) return { unusable: 'the conversation has no messages' };
  const range = archivedRange(input, c);
  if ('unusable' in range) return range;
  const instruction = summaryInstruction(range, c, o);
  return { messages: withInstructionTurn(c.messages, instruction), instruction };
}
