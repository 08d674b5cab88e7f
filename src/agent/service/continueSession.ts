// "Continue in Splitpoint" (issue 24 item 5): a new Splitpoint chat session whose history is another
// agent's session as it stands now (its current context, imported exactly as the inspector imports it),
// with the compactions that agent recorded as the new session's past compactions. Each recorded
// compaction's archived context is saved first as a transcript (what Splitpoint's time travel and undo
// read), and becomes a compaction record the chat and the inspector show. The session is written to the
// store's folder as Splitpoint writes its own (messages, meta, chat log), then opened by the controller
// (resume), so nothing here reaches into the controller. The recorded file is only read, never written.
//
// One thing of the recording is left out of what the model is sent: thinking blocks. Each is signed for the
// conversation that produced it (that agent's system prompt, tools and model); sent under Splitpoint's, the
// API may refuse the request ("bound to a different conversation"), and omitting the thinking of earlier
// turns is what the API documents as allowed. The chat still shows the thinking; the inspector of the
// recorded file shows it too.
import { basename, join } from 'node:path';
import { rmSync } from 'node:fs';
import {
  errorMessage,
  ImportError,
  importSessionFile,
  isTurnStart,
  newMessageId,
  recordedInputTokens,
  SessionFileStore,
  SessionFollower,
  SplitpointError,
  textOf,
  TranscriptStore,
  type CompactionRecord,
  type ImportResult,
  type Message,
  type RecordedCompaction,
} from '../../core';
import { agentOf } from '../../inspector/recordedViews';
import { transcriptDirFor } from '../../settings/engineSettings';
import type { HostSettings } from '../../settings/hostSettings';
import { chatLogPath, writeContinuedChat } from './continuedChat';

/** Where the controller keeps what a session needs, as it is built (ControllerDeps and its settings). */
export interface ContinueTarget {
  /** The controller's storage folder: its sessions live in `<storageDir>/sessions`. */
  storageDir: string;
  workspaceRoot: string | undefined;
  /** The current settings: the model the session continues with, the transcript folder. */
  settings: HostSettings;
  now?: () => number;
}

/** What was continued, and what the chat says about it. */
export interface ContinuedSession {
  /** The new Splitpoint session's id. */
  id: string;
  /** The recorded session file (never written to). */
  source: string;
  /** Who recorded it, for people ("Claude Code", "Codex", …). */
  agent: string;
  /** Messages of the history (the recording's current context). */
  messages: number;
  /** Compaction records made from the recorded compactions. */
  compactions: number;
  /** The transcripts written, one per recorded compaction (its archived context), oldest first. */
  transcripts: string[];
  /** The model of the recording's last call, when recorded. */
  recordedModel: string | null;
  /** The model the session continues with (splitpoint.model). */
  model: string;
  /** Thinking blocks left out of the history and the transcripts (signed for the recording's conversation). */
  droppedThinking: number;
  /** The chat's notices, in order: where it came from, the model's (when the recording's differs), the thinking left out. */
  notices: string[];
}

/** Why a session could not be continued: the message names the file (and line and field, from the import). */
export class ContinueSessionError extends SplitpointError {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(detail);
    this.name = 'ContinueSessionError';
  }
}

/** The folder of the controller's saved sessions (AgentController keeps its SessionFileStore there). */
export function sessionsDirOf(storageDir: string): string {
  return join(storageDir, 'sessions');
}

/** Continue `file` in Splitpoint: write the new session (writeContinuedSession), then make it the current chat. */
export async function continueSession(
  controller: { resume(id: string): void },
  file: string,
  target: ContinueTarget,
): Promise<ContinuedSession> {
  const continued = await writeContinuedSession(file, target);
  controller.resume(continued.id);
  return continued;
}

/**
 * Import `file` and write a new Splitpoint session of it to the store's folder, without opening it:
 * transcripts of the recorded compactions' archived contexts, the session's messages and meta (with
 * one compaction record per recorded compaction), and its chat log. On a failure nothing of the new
 * session is left behind and a ContinueSessionError names the file.
 */
export async function writeContinuedSession(file: string, target: ContinueTarget): Promise<ContinuedSession> {
  let result: ImportResult;
  try {
    result = await importCurrent(file);
  } catch (e) {
    // An ImportError names the file, the line and the field already.
    const detail = e instanceof ImportError ? e.message : `${file}: ${errorMessage(e)}`;
    throw new ContinueSessionError(file, `Cannot continue this session in Splitpoint: ${detail}`);
  }
  if (result.messages.length === 0)
    throw new ContinueSessionError(file, `Cannot continue this session in Splitpoint: ${file}: it holds no messages.`);
  const agent = agentOf(result.format);
  const now = target.now ?? Date.now;
  const sessionsDir = sessionsDirOf(target.storageDir);
  const store = new SessionFileStore(sessionsDir, { now });
  const transcripts = new TranscriptStore({
    dir: transcriptDirFor(target.settings, target.workspaceRoot, target.storageDir),
    root: target.workspaceRoot,
    now,
  });
  const id = newMessageId('chat');
  const written: string[] = [];
  const sent = withoutThinking(result.messages);
  let droppedThinking = sent.dropped;
  try {
    const records = result.compactions.map((c, k) => {
      const before = withoutThinking(c.before);
      droppedThinking += before.dropped;
      const saved = transcripts.saveTranscript(id, before.messages, `compaction recorded by ${agent} in ${basename(file)}`);
      written.push(saved.path);
      return recordOf(c, k, result, saved.path, saved.sha256, agent, now);
    });
    const log = store.create(id, titleOf(result, agent, file));
    written.push(store.messagesPath(id), store.messagesPath(id).replace(/\.jsonl$/, '.meta.json'));
    log.appendAll(sent.messages);
    for (const r of records) log.addCompaction(r);
    log.dispose();
    const notices = noticesOf(result, agent, file, target.settings.model, droppedThinking);
    const chatFile = chatLogPath(sessionsDir, id);
    written.push(chatFile);
    writeContinuedChat(chatFile, { messages: result.messages, history: sent.messages, compactions: records, notices });
    return {
      id,
      source: file,
      agent,
      messages: result.messages.length,
      compactions: records.length,
      transcripts: written.slice(0, records.length),
      recordedModel: result.model ?? null,
      model: target.settings.model,
      droppedThinking,
      notices,
    };
  } catch (e) {
    for (const p of written) rmSync(p, { force: true });
    throw new ContinueSessionError(file, `Could not continue ${file} in Splitpoint: ${errorMessage(e)}`);
  }
}

/**
 * The import of `file` as "Inspect Session File…" reads it; when its agent is writing the last line right
 * now (a partial line that does not parse), the import of the lines it has finished, as the followed
 * inspector shows it. Any other failure is the import's (an ImportError naming file, line and field).
 */
async function importCurrent(file: string): Promise<ImportResult> {
  try {
    return await importSessionFile(file);
  } catch (e) {
    if (!(e instanceof ImportError) || e.line === undefined) throw e;
    // The complete lines import (the follower leaves a partial last line out): the failure was that line.
    const update = await new SessionFollower(file).poll().catch(() => undefined);
    if (!update || update.gone) throw e;
    return update.result;
  }
}

/**
 * A recorded compaction as one of Splitpoint's: its transcript holds the context it archived (`before`);
 * the history right after it was its summary (`resultLength`), so an undo of the last one brings `before`
 * back followed by what came after the summary, as Splitpoint's own undo does.
 */
function recordOf(
  c: RecordedCompaction,
  k: number,
  result: ImportResult,
  transcriptPath: string,
  transcriptSha256: string,
  agent: string,
  now: () => number,
): CompactionRecord {
  const summary = c.summary.find((m) => m.synthetic === 'summary');
  const after = k + 1 < result.compactions.length ? result.compactions[k + 1].before : result.messages;
  return {
    id: newMessageId('cmp'),
    at: c.at ?? now(),
    strategy: c.trigger === 'unknown' ? `${agent} (recorded, trigger not recorded)` : `${agent} (recorded)`,
    params: {},
    // A compaction record's trigger is one Splitpoint knows; an unrecorded one is named in the strategy.
    trigger: c.trigger === 'auto' ? 'auto' : 'manual',
    tokensBefore: c.preTokens ?? estimatedTokens(c.before),
    tokensAfter: firstRecordedInput(after, c.summary.length) ?? estimatedTokens(c.summary),
    archivedCount: c.before.length,
    truncatedCount: 0,
    transcriptPath,
    transcriptSha256,
    syntheticId: summary?.id ?? null,
    tailStartId: null,
    resultLength: c.summary.length,
  };
}

/** The recorded input of the first model call after the summary: what the context held right after the compaction. */
function firstRecordedInput(messages: readonly Message[], from: number): number | undefined {
  for (let i = from; i < messages.length; i++) {
    const u = messages[i].usage;
    if (u) return recordedInputTokens(u);
  }
  return undefined;
}

/** About 4 characters a token: only where the recording gives no figure (the chat's divider). */
function estimatedTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) chars += textOf(m).length;
  return Math.ceil(chars / 4);
}

/** "Claude Code: <the first prompt>", else the file's name. */
function titleOf(result: ImportResult, agent: string, file: string): string {
  const first = [...(result.compactions[0]?.before ?? []), ...result.messages].find(isTurnStart);
  const prompt = first ? textOf(first).replace(/\s+/g, ' ').trim() : '';
  const title = `${agent}: ${prompt || basename(file)}`;
  return title.length > 60 ? `${title.slice(0, 59)}…` : title;
}

/**
 * `messages` without their thinking and redacted-thinking blocks (a message of nothing else is left out;
 * the others keep their id and everything else). The same array when there is none.
 */
export function withoutThinking(messages: readonly Message[]): { messages: Message[]; dropped: number } {
  let dropped = 0;
  const out: Message[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string' || !m.content.some(isThinking)) {
      out.push(m);
      continue;
    }
    const kept = m.content.filter((b) => !isThinking(b));
    dropped += m.content.length - kept.length;
    if (kept.length > 0) out.push({ ...m, content: kept });
  }
  return { messages: dropped === 0 ? [...messages] : out, dropped };
}

function isThinking(b: { type: string }): boolean {
  return b.type === 'thinking' || b.type === 'redacted_thinking';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function noticesOf(result: ImportResult, agent: string, file: string, model: string, droppedThinking: number): string[] {
  const notices = [
    `Continued from ${agent} session ${basename(file)} (${plural(result.messages.length, 'message')}, ` +
      `${plural(result.compactions.length, 'recorded compaction')}).`,
  ];
  const recorded = result.model;
  if (recorded && recorded !== model) {
    const why = /^claude/i.test(recorded) ? '' : ` (${recorded} is not an Anthropic model, so it cannot answer here)`;
    notices.push(`${agent} used ${recorded}; this chat continues with ${model}, your Splitpoint model${why}.`);
  }
  if (droppedThinking > 0)
    notices.push(
      `${plural(droppedThinking, 'thinking block')} of ${agent} ${droppedThinking === 1 ? 'is' : 'are'} shown here but not sent: ` +
        `each is signed for ${agent}'s own conversation, and the API may refuse it in another.`,
    );
  return notices;
}
