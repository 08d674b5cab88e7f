// The facts probes are made from, read off the archived messages: tool calls paired with their
// results (files created, edited and deleted; commands and how they ended; error lines), and the
// text the session wrote (figures and names in tool results and assistant text). Each fact names the
// messages it comes from. Deterministic: the order is the messages' order.
import { isTurnStart, textOf, toolResultText, type Message, type ToolUseBlock } from '../conversation/conversation';
import { commandText, exitCodeOf, field, fileTouches, pairCalls, STEP_ITEMS, type Call } from '../ledger/ledgerExtract';
import { runSteps, type Steps } from '../base/slicedWork';

export { pairCalls, type Call };
import { commandHead, commandTitle, commandVerb, mainSegment, type CommandPurpose } from './commands';
import { clip, oneLine } from './normalize';

export interface FileFact {
  path: string;
  action: 'created' | 'edited' | 'deleted';
  /** A line the change wrote (to ask about the file without naming it), if any. */
  hint: string | null;
  sources: string[];
  /** Position of the last change (message index): later changes matter more at the split. */
  at: number;
}

export interface CommandFact {
  command: string;
  /** The words a summary would quote (see commandHead). */
  head: string;
  /** The words naming what it does ("git commit", "gh issue close"). */
  verb: string;
  /** The title or message it gives in quotes (a PR title, a commit message), if any. */
  title?: string;
  exitCode: number | null;
  purpose: CommandPurpose;
  sources: string[];
  at: number;
}

export interface ErrorFact {
  line: string;
  /** What printed it: the command, or the tool and its target. */
  origin: string;
  sources: string[];
  at: number;
}

const DELETE_RE = /(?:^|[;&|]\s*)(?:git\s+rm|rm)\s+(?:-[a-zA-Z]+\s+)*([^\s;&|]+(?:\s+[^\s;&|-][^\s;&|]*)*)/g;

/** A distinctive line the change wrote: the first non-trivial line of the new text. */
function changeHint(use: ToolUseBlock, path: string): string | null {
  let text = field(use.input, 'new_string', 'content', 'new_str', 'file_text', 'new_source');
  if (!text && use.input && typeof use.input === 'object' && Array.isArray((use.input as { edits?: unknown }).edits)) {
    const first = (use.input as { edits: unknown[] }).edits[0];
    text = field(first, 'new_string');
  }
  if (!text && use.name === 'apply_patch') {
    const patch = typeof use.input === 'string' ? use.input : field(use.input, 'input', 'patch');
    text = patch
      ?.split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => l.slice(1))
      .join('\n');
  }
  if (!text) return null;
  const base = path.split('/').pop() ?? path;
  for (const raw of text.split('\n')) {
    const line = oneLine(raw);
    if (line.length < 12 || !/[a-zA-Z]{3}/.test(line) || line.includes(base) || /^[{}()[\];,\s]*$/.test(line)) continue;
    return clip(line, 80);
  }
  return null;
}

function sourcesOf(call: Call): string[] {
  return call.resultMessage && call.resultMessage.id !== call.useMessage.id
    ? [call.useMessage.id, call.resultMessage.id]
    : [call.useMessage.id];
}

/** Files created, edited and deleted (latest action wins; the path's last change is its position). */
export function fileFacts(messages: readonly Message[]): FileFact[] {
  return runSteps(fileFactsSteps(pairCalls(messages)));
}

/** fileFacts of the messages `calls` pairs (pairCallsSteps), yielding every STEP_ITEMS calls. */
export function* fileFactsSteps(calls: readonly Call[]): Steps<FileFact[]> {
  const files = new Map<string, FileFact>();
  const touch = (path: string, action: FileFact['action'], call: Call, hint: string | null) => {
    const prev = files.get(path);
    const at = call.useAt;
    const created = prev?.action === 'created' && action === 'edited';
    files.delete(path);
    files.set(path, {
      path,
      action: created ? 'created' : action,
      hint: hint ?? prev?.hint ?? null,
      sources: prev ? [...new Set([call.useMessage.id, ...prev.sources])].slice(0, 3) : [call.useMessage.id],
      at,
    });
  };
  const known = { has: (p: string) => files.has(p) };
  for (let k = 0; k < calls.length; k++) {
    if ((k + 1) % STEP_ITEMS === 0) yield;
    const call = calls[k];
    if (call.result?.is_error) continue;
    if (call.use.name === 'apply_patch') {
      const patch = typeof call.use.input === 'string' ? call.use.input : field(call.use.input, 'input', 'patch');
      for (const m of (patch ?? '').matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) {
        const path = (m[2] ?? m[3]).trim();
        const action = m[1] === 'Add' ? 'created' : m[1] === 'Delete' ? 'deleted' : 'edited';
        if (path) touch(path, action, call, action === 'deleted' ? null : changeHint(call.use, path));
      }
      continue;
    }
    for (const t of fileTouches(call.use, known)) {
      if (t.action === 'read') continue;
      touch(t.path, t.action, call, changeHint(call.use, t.path));
    }
    const command = commandText(call.use);
    if (command && exitCodeOf(call.result) === 0) {
      for (const m of command.matchAll(DELETE_RE)) for (const p of m[1].split(/\s+/)) if (/[./]/.test(p)) touch(p, 'deleted', call, null);
    }
  }
  return [...files.values()];
}

/** Commands with how they ended. */
export function commandFacts(messages: readonly Message[]): CommandFact[] {
  return runSteps(commandFactsSteps(pairCalls(messages)));
}

/** commandFacts of the messages `calls` pairs (pairCallsSteps), yielding every STEP_ITEMS calls. */
export function* commandFactsSteps(calls: readonly Call[]): Steps<CommandFact[]> {
  const out: CommandFact[] = [];
  for (let k = 0; k < calls.length; k++) {
    if ((k + 1) % STEP_ITEMS === 0) yield;
    const call = calls[k];
    const command = commandText(call.use);
    if (command === null) continue;
    const { segment, purpose } = mainSegment(command);
    out.push({
      command,
      head: commandHead(segment),
      verb: commandVerb(segment),
      ...(commandTitle(segment) ? { title: commandTitle(segment) } : {}),
      exitCode: exitCodeOf(call.result),
      purpose,
      sources: sourcesOf(call),
      at: call.useAt,
    });
  }
  return out;
}

const ERROR_LINE =
  /\b(error|Error|ERROR|failed|FAILED|FAIL|Exception|exception|cannot|Cannot|not found|No such file|undefined is not|Traceback|panicked|denied|refused|TS\d{4}|E\d{4})\b/;

const STRONG_ERROR = /\b(\w*Error|Exception|error(?: TS\d+)?|panicked)\b:|\berror\[|Traceback|No such file|not found|cannot|Cannot/;

/** The first error line of each failed call (is_error, or a non-zero exit). */
export function errorFacts(messages: readonly Message[]): ErrorFact[] {
  return runSteps(errorFactsSteps(pairCalls(messages)));
}

/** errorFacts of the messages `calls` pairs (pairCallsSteps), yielding every STEP_ITEMS calls. */
export function* errorFactsSteps(calls: readonly Call[]): Steps<ErrorFact[]> {
  const out: ErrorFact[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < calls.length; k++) {
    if ((k + 1) % STEP_ITEMS === 0) yield;
    const call = calls[k];
    if (!call.result) continue;
    const command = commandText(call.use);
    const exit = command !== null ? exitCodeOf(call.result) : null;
    if (!call.result.is_error && !(exit !== null && exit !== 0)) continue;
    const text = toolResultText(call.result);
    const lines = text
      .split('\n')
      .map((l) => oneLine(l.replace(/<\/?[a-z_]+>/g, '')))
      .filter((l) => l.length >= 10 && l.length <= 400 && ERROR_LINE.test(l) && !/^(exit code|process exited)/i.test(l));
    // The line that states the error ("TypeError: …", "error TS2345: …") over a summary line ("FAIL file").
    const line = lines.find((l) => STRONG_ERROR.test(l)) ?? lines[0];
    if (!line) continue;
    const clipped = clip(line, 160);
    if (seen.has(clipped)) continue;
    seen.add(clipped);
    const target = command ?? field(call.use.input, 'path', 'file_path', 'pattern', 'query', 'url') ?? '';
    out.push({
      line: clipped,
      origin: `${call.use.name}${target ? ` ${clip(oneLine(target), 80)}` : ''}`,
      sources: sourcesOf(call),
      at: call.useAt,
    });
  }
  return out;
}

/** A prompt typed by a person (a turn start with text). */
function isGenuinePrompt(m: Message): boolean {
  return isTurnStart(m) && textOf(m).trim() !== '';
}

/** Genuine prompts (typed by a person), in order. */
export function genuinePrompts(messages: readonly Message[]): Message[] {
  return messages.filter(isGenuinePrompt);
}

/** The last genuine prompt, searched from the end (genuinePrompts' last, without reading every message). */
export function lastGenuinePrompt(messages: readonly Message[]): Message | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (isGenuinePrompt(messages[i])) return messages[i];
  return undefined;
}

/** The assistant's own text (no thinking, no tool calls) of a message. */
export function assistantText(m: Message): string {
  if (m.role !== 'assistant') return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .filter((b) => b.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('\n');
}
