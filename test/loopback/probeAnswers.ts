/**
 * Probe requests (issue 22, "Check this compaction"): the loopback answers them from the request's own
 * text, so the whole online path (host → SDK → wire → answers → deterministic scoring) runs without a
 * real model, and what it answers depends only on what the compacted context still holds.
 *
 * Recognised: the last user message's last text block is core's probeQuestionsPrompt (its JSON shape
 * line `{"answers":[{"id":"p-…","answer":"…"}]}`, then one `<id>: <question>` line per probe).
 *
 * Answered, for each question: its keywords (words of 3+ letters less a stop list, lowercased) are
 * matched against every line of the context: the text of every message before the questions (text
 * blocks, tool results, and each field of a tool call as `<tool> <field>: <value>`); never the system
 * prompt or the tool definitions, which do not change with compaction, nor the questions themselves.
 * A line's score is how many distinct keywords it holds. The answer is the best lines (the top score,
 * and every line holding two keywords or more), latest first, at most 12 lines joined by " | ";
 * "unknown" when no line holds a keyword. So an expected fact is in the answer when the context
 * still has it on a line the question's words point to, and never when the compaction dropped it.
 * The reply is the JSON the prompt asks for, in a ```json fence with a line of prose before it (the
 * parser must tolerate both, as with a real model).
 */
import type { MessagesRequestBody, WireBlock, WireMessage } from './wire';

/** The line of probeQuestionsPrompt that asks for JSON answers (core's src/core/probes/ask.ts). */
const PROBE_SHAPE = '{"answers":[{"id":"p-';
const QUESTION_LINE = /^(p-[A-Za-z0-9_-]+): (.+)$/;
const STOP = new Set(
  (
    'the and for did what which that this with from its was were has have had does how who when where why into onto give ' +
    'quote exactly session user said stated agent goes blank last their there then than they them your you one'
  ).split(' '),
);
const MAX_LINES = 12;

/** The probe prompt of a request (the last user message's last text block), or undefined when it is none. */
export function probePrompt(body: MessagesRequestBody): string | undefined {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  const last = messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = typeof last.content === 'string' ? last.content : [...last.content].reverse().find((b) => b.type === 'text')?.text;
  return typeof text === 'string' && text.includes(PROBE_SHAPE) ? text : undefined;
}

/** The questions of a probe prompt, by id. */
export function probeQuestions(prompt: string): Array<{ id: string; question: string }> {
  return prompt
    .split('\n')
    .map((l) => QUESTION_LINE.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ id: m[1]!, question: m[2]! }));
}

/** The reply text to a probe request: every question answered from the context's lines (see above). */
export function probeReplyText(body: MessagesRequestBody, prompt: string): string {
  const lines = contextLines(body, prompt);
  const answers = probeQuestions(prompt).map(({ id, question }) => ({ id, answer: answerFrom(lines, keywords(question)) }));
  return `Here are the answers.\n\`\`\`json\n${JSON.stringify({ answers })}\n\`\`\``;
}

export function keywords(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? [];
  return [...new Set(words.filter((w) => !STOP.has(w)))];
}

function answerFrom(lines: readonly string[], words: readonly string[]): string {
  if (words.length === 0) return 'unknown';
  const scored = lines
    .map((line, at) => {
      const lower = line.toLowerCase();
      return { line, at, score: words.filter((w) => lower.includes(w)).length };
    })
    .filter((s) => s.score > 0);
  if (scored.length === 0) return 'unknown';
  const top = Math.max(...scored.map((s) => s.score));
  const chosen = scored
    .filter((s) => s.score === top || s.score >= 2)
    .sort((a, b) => b.score - a.score || b.at - a.at)
    .slice(0, MAX_LINES);
  return chosen.map((s) => s.line.trim()).join(' | ');
}

/** Every non-empty line of the messages' text, the probe prompt left out. */
function contextLines(body: MessagesRequestBody, prompt: string): string[] {
  const out: string[] = [];
  const push = (text: string) => {
    // A heading line ("Files:") and the bullets under it are one line: the bullets answer what the heading names.
    let heading = false;
    for (const l of text.split('\n')) {
      if (l.trim() === '') {
        heading = false;
        continue;
      }
      if (heading && /^\s*[-*] /.test(l)) out[out.length - 1] = `${out[out.length - 1]!} ${l.trim()}`;
      else {
        out.push(l);
        heading = /:\s*$/.test(l);
      }
    }
  };
  for (const m of (Array.isArray(body.messages) ? body.messages : []) as WireMessage[]) {
    if (typeof m.content === 'string') push(m.content);
    else for (const b of m.content) blockText(b, push, prompt);
  }
  return out;
}

function blockText(b: WireBlock, push: (text: string) => void, prompt: string): void {
  if (b.type === 'text' && typeof b.text === 'string' && b.text !== prompt) push(b.text);
  else if (b.type === 'tool_use' && b.input && typeof b.input === 'object')
    for (const [k, v] of Object.entries(b.input as Record<string, unknown>))
      push(`${b.name ?? 'tool'} ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  else if (b.type === 'tool_result') {
    if (typeof b.content === 'string') push(b.content);
    else if (Array.isArray(b.content)) for (const c of b.content) blockText(c, push, prompt);
  }
}
