// Extracting the artifact ledger: a deterministic pass (no model) over the messages a plan archives.
// Files come from the tool calls of this agent (read_file, edit_file, write_file, list_files) and of
// the recorded agents (Claude Code Read/Edit/MultiEdit/Write/NotebookEdit, Codex apply_patch and view_image);
// commands from run_command, Bash, exec_command and shell, with the exit status their results state;
// errors from is_error results (and failed commands), resolved when a later call on the same target
// succeeds; instructions from genuine prompts. The result is merged with the previous ledger and fitted
// to a token budget (ledgerMerge.ts).
import { isTurnStart, textOf, toolResultText, type Message, type ToolResultBlock, type ToolUseBlock } from '../conversation/conversation';
import type { ArtifactLedger, LedgerCommand, LedgerError, LedgerFile } from './ledger';
import { addCommand, fitLedgerSteps, mergeLedgers } from './ledgerMerge';
import type { MessageTokenCounter } from '../counting/tokens';
import { runSteps, type Steps } from '../base/slicedWork';
import { IdMap } from '../base/sharded';

/** A prompt up to this many characters is kept verbatim; a longer one is clipped to it, with a pointer. */
export const INSTRUCTION_VERBATIM_CHARS = 600;
const COMMAND_CHARS = 200;
const ERROR_CHARS = 160;

export interface ExtractLedgerOptions {
  /** The rendered ledger never costs more than this (older entries are folded, with counts). */
  budgetTokens: number;
  counter: MessageTokenCounter;
  /** Where the full history is (or will be) saved; named by clipped prompts. */
  transcriptPath?: string;
  /** The ledger of the previous compaction: merged first, so the ledger accumulates. */
  previous?: ArtifactLedger | null;
}

type FileAction = 'read' | 'edited' | 'created';
/** A tool call, the message it is in, and its result and the result's message once answered. */
export interface Call {
  use: ToolUseBlock;
  useMessage: Message;
  /** The position of useMessage in the messages paired. */
  useAt: number;
  result?: ToolResultBlock;
  resultMessage?: Message;
}

// Codex `view_image` opens an image by path: a file read like any other.
const READ_TOOLS = new Set(['read_file', 'list_files', 'Read', 'NotebookRead', 'LS', 'view_image']);
const EDIT_TOOLS = new Set(['edit_file', 'Edit', 'MultiEdit', 'NotebookEdit']);
const WRITE_TOOLS = new Set(['write_file', 'Write']);
const COMMAND_TOOLS = new Set(['run_command', 'Bash', 'exec_command', 'shell', 'local_shell', 'container.exec']);

/** The first of `keys` whose value in a tool input is a non-blank string. */
export function field(input: unknown, ...keys: string[]): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const rec = input as Record<string, unknown>;
  for (const k of keys) {
    const v = rec[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

/** The files a call touches, with what it did to each. */
export function fileTouches(use: ToolUseBlock, known: { has(path: string): boolean }): Array<{ path: string; action: FileAction }> {
  const path = field(use.input, 'path', 'file_path', 'notebook_path');
  if (READ_TOOLS.has(use.name) && path) return [{ path, action: 'read' }];
  if (EDIT_TOOLS.has(use.name) && path) return [{ path, action: 'edited' }];
  if (WRITE_TOOLS.has(use.name) && path) return [{ path, action: known.has(path) ? 'edited' : 'created' }];
  if (use.name === 'apply_patch') return patchTouches(typeof use.input === 'string' ? use.input : field(use.input, 'input', 'patch'));
  return [];
}

/** Files named by a Codex patch: `*** Add File:` (created), `*** Update File:`, `*** Delete File:`, `*** Move to:`. */
export function patchTouches(patch: string | undefined): Array<{ path: string; action: FileAction }> {
  if (!patch) return [];
  const out: Array<{ path: string; action: FileAction }> = [];
  for (const m of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) {
    const path = (m[2] ?? m[3]).trim();
    if (path) out.push({ path, action: m[1] === 'Add' ? 'created' : 'edited' });
  }
  return out;
}

/** The command line of a shell call, on one line. */
export function commandText(use: ToolUseBlock): string | null {
  if (!COMMAND_TOOLS.has(use.name)) return null;
  const input = use.input as Record<string, unknown> | null;
  let raw = field(input, 'command', 'cmd');
  if (!raw && input && Array.isArray(input.command)) {
    const argv = input.command.filter((a): a is string => typeof a === 'string');
    // ["bash", "-lc", "script"]: the script is the command.
    raw = argv.length === 3 && /^-l?c$/.test(argv[1]) ? argv[2] : argv.join(' ');
  }
  if (!raw) return null;
  return clip(oneLine(raw), COMMAND_CHARS);
}

/** The exit status a command's result states ("[Exit code 1]", "Process exited with code 0", …). */
export function exitCodeOf(result: ToolResultBlock | undefined): number | null {
  if (!result) return null;
  const text = toolResultText(result);
  const m = /(?:Process exited with code|Exit code:?|exit code:?|exit status:?)\s*(-?\d+)/.exec(text);
  if (m) return Number(m[1]);
  // Claude Code marks a non-zero exit as an error and prints no status for a zero one.
  return result.is_error ? null : 0;
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A genuine prompt as the ledger keeps it: verbatim when short, else clipped with a pointer to the transcript. */
export function instructionText(message: Message, transcriptPath?: string): string {
  const text = textOf(message).trim();
  if (text.length <= INSTRUCTION_VERBATIM_CHARS) return text;
  const where = transcriptPath ? `the transcript ${transcriptPath}` : 'the transcript';
  return `${text.slice(0, INSTRUCTION_VERBATIM_CHARS)} … [clipped: ${text.length} chars; full prompt in ${where}, message ${message.id}]`;
}

/** Messages (or calls) handled between two yields of the sliced passes over archived messages. */
export const STEP_ITEMS = 256;

/** Tool calls paired with their results, in order. */
export function pairCalls(messages: readonly Message[]): Call[] {
  return runSteps(pairCallsSteps(messages));
}

/** pairCalls, yielding every STEP_ITEMS messages. */
export function* pairCallsSteps(messages: readonly Message[]): Steps<Call[]> {
  const calls: Call[] = [];
  // Sharded: a huge session has hundreds of thousands of calls (one Map rehashed them in one step as it grew).
  const byId = new IdMap<Call>();
  for (let i = 0; i < messages.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0) yield;
    const m = messages[i];
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use') {
        const call: Call = { use: b as ToolUseBlock, useMessage: m, useAt: i };
        calls.push(call);
        byId.set(call.use.id, call);
      } else if (b.type === 'tool_result') {
        const call = byId.get((b as ToolResultBlock).tool_use_id);
        if (call) {
          call.result = b as ToolResultBlock;
          call.resultMessage = m;
        }
      }
    }
  }
  return calls;
}

/** What a call targets, to tell whether a later call retried it successfully. */
function targetOf(use: ToolUseBlock): string {
  return `${use.name}\u0000${commandText(use) ?? field(use.input, 'path', 'file_path', 'notebook_path', 'pattern', 'query') ?? ''}`;
}

/** The ledger of `archived`, unbounded and without a previous ledger (see extractLedger). */
export function rawLedger(archived: readonly Message[], transcriptPath?: string): ArtifactLedger {
  return runSteps(rawLedgerSteps(archived, transcriptPath));
}

/** rawLedger, yielding every STEP_ITEMS messages or calls. */
export function* rawLedgerSteps(archived: readonly Message[], transcriptPath?: string): Steps<ArtifactLedger> {
  const files = new Map<string, LedgerFile>();
  const commands: LedgerCommand[] = [];
  const errors: Array<LedgerError & { target: string }> = [];
  // The errors not yet resolved, by target: a later success resolves them all (one lookup, not a pass over every error).
  const open = new Map<string, Array<LedgerError & { target: string }>>();
  const calls = yield* pairCallsSteps(archived);
  for (let k = 0; k < calls.length; k++) {
    if ((k + 1) % STEP_ITEMS === 0) yield;
    const { use, result } = calls[k];
    for (const t of fileTouches(use, files)) {
      const f = files.get(t.path) ?? { path: t.path, read: 0, edited: 0, created: 0, lastAction: t.action };
      f[t.action]++;
      f.lastAction = t.action;
      // Most recently touched last.
      files.delete(t.path);
      files.set(t.path, f);
    }
    const command = commandText(use);
    const exitCode = command === null ? null : exitCodeOf(result);
    if (command !== null) addCommand(commands, { command, exitCode });
    const target = targetOf(use);
    const failed = result?.is_error === true || (exitCode !== null && exitCode !== 0);
    if (failed) {
      const what = command ?? field(use.input, 'path', 'file_path', 'notebook_path', 'pattern', 'query') ?? '';
      const first = oneLine(result ? toolResultText(result) : '');
      const error = {
        text: clip(`${use.name}${what ? ` ${clip(what, 80)}` : ''}: ${first || 'failed'}`, ERROR_CHARS),
        resolved: false,
        target,
      };
      errors.push(error);
      const pending = open.get(target);
      if (pending) pending.push(error);
      else open.set(target, [error]);
    } else if (result) {
      for (const e of open.get(target) ?? []) e.resolved = true;
      open.delete(target);
    }
  }
  const instructions: string[] = [];
  for (let i = 0; i < archived.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0) yield;
    if (isTurnStart(archived[i])) instructions.push(instructionText(archived[i], transcriptPath));
  }
  const names = yield* namesOfSteps(archived, files);
  return {
    files: [...files.values()],
    commands,
    errors: errors.map(({ text, resolved }) => ({ text, resolved })),
    instructions: instructions.filter((t) => t !== ''),
    ...(names.length > 0 ? { names } : {}),
  };
}

/** Most names a ledger keeps (the newest). */
export const MAX_LEDGER_NAMES = 60;

const NAME = /`([^`\n]{2,60})`/g;
/** A code name: one token (no spaces), not a number, not a path (the file list has those), not a command line. */
const CODE_NAME = /^[@#$.:]?[A-Za-z_][\w$.:@<>[\]-]*(\(\))?$/;

/** The code names the archived assistant text set in backticks, deduplicated, newest last. */
export function namesOf(archived: readonly Message[], files: { has(path: string): boolean }): string[] {
  return runSteps(namesOfSteps(archived, files));
}

/** namesOf, yielding every STEP_ITEMS messages (the names in the order last set: a Map, not a search per name). */
function* namesOfSteps(archived: readonly Message[], files: { has(path: string): boolean }): Steps<string[]> {
  const names = new Set<string>();
  for (let i = 0; i < archived.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0) yield;
    const m = archived[i];
    if (m.role !== 'assistant' || m.synthetic !== undefined) continue;
    for (const match of textOf(m).matchAll(NAME)) {
      const name = match[1].trim();
      if (!CODE_NAME.test(name) || name.includes('/') || files.has(name)) continue;
      names.delete(name);
      names.add(name);
    }
  }
  return [...names].slice(-MAX_LEDGER_NAMES);
}

/**
 * The artifact ledger of the messages a plan archives, merged with the previous compaction's and
 * fitted to `budgetTokens` (newest first; what is folded away is counted in `folded`).
 */
export function extractLedger(archived: readonly Message[], opts: ExtractLedgerOptions): ArtifactLedger {
  return fittedLedger(rawLedger(archived, opts.transcriptPath), opts);
}

/** extractLedger from the raw ledger of the archived messages (rawLedger with opts.transcriptPath). */
export function fittedLedger(next: ArtifactLedger, opts: ExtractLedgerOptions): ArtifactLedger {
  return runSteps(fittedLedgerSteps(next, opts));
}

/** fittedLedger, yielding between the counts of the ledger as it is fitted. */
export function* fittedLedgerSteps(next: ArtifactLedger, opts: ExtractLedgerOptions): Steps<ArtifactLedger> {
  const merged = opts.previous ? mergeLedgers(opts.previous, next) : next;
  return yield* fitLedgerSteps(merged, opts.budgetTokens, opts.counter);
}
