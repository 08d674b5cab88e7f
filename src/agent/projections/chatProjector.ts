// What the chat shows of a run and of compactions: agent events become chat items (streamed text
// and thinking as deltas, tool cards with their status, input, output and approval state),
// compactions become dividers, and tool cards whose results micro-compaction now replaces in what
// the model sees get a "truncated" badge. It writes to one ChatLog; it never talks to the model.
import { newMessageId, type CompactionFailure, type CompactionRecord, type ContentBlock, type Message } from '../../core';
import { imageDataUrls } from '../service/promptAttachments';
import type { AgentEvent } from '../loop/agentEvents';
import { MAX_CARD_OUTPUT, type ChatLog } from './chatLog';
import { parseMcpToolName } from '../mcp/names';

/** Live command output reaches the chat as one delta per card at most this often. */
export const OUTPUT_THROTTLE_MS = 100;

export class ChatProjector {
  /** Streaming state: which chat item receives the deltas of content block i of step s of a run. */
  private readonly streamItems = new Map<string, string>();
  /** Live output not yet sent, per tool card, and the timer that sends it. */
  private readonly pendingOutput = new Map<string, { text: string; timer: ReturnType<typeof setTimeout> }>();
  /** The chat item of the prompt just sent, until its run starts and names its session message (what a pin names). */
  private promptItem: string | undefined;

  constructor(
    private readonly chat: ChatLog,
    /** What the model sees now (micro-compacted), for the truncated badges. */
    private readonly effectiveMessages: () => readonly Message[],
  ) {}

  /** Project one agent event onto the chat. compaction-* events come through the pipeline instead. */
  project(e: AgentEvent): void {
    switch (e.type) {
      case 'turn-started':
        this.streamItems.clear();
        if (e.promptMessageId && this.promptItem) this.chat.update(this.promptItem, 'user', { messageId: e.promptMessageId });
        this.promptItem = undefined;
        break;
      case 'text-delta':
        this.streamed(e.runId, e.step, e.index, 'assistant', e.text);
        break;
      case 'thinking-delta':
        this.streamed(e.runId, e.step, e.index, 'thinking', e.thinking);
        break;
      case 'tool-call-started':
        this.chat.upsert({ kind: 'tool', id: e.toolUseId, name: e.name, input: '', status: 'running', ...mcpServerOf(e.name) });
        break;
      case 'tool-call-input':
        this.chat.update(e.toolUseId, 'tool', {
          input: prettyJson(e.input),
          ...(e.name === 'run_command' ? { command: commandOf(e.input) } : {}),
        });
        break;
      case 'assistant-message':
        this.settleStream(e.runId, e.step, '', e.message.id);
        break;
      case 'assistant-interrupted':
        // On an error nothing was kept, so the streamed text is marked as such.
        this.settleStream(
          e.runId,
          e.step,
          e.reason === 'cancelled' ? '\n\n*(stopped)*' : '\n\n*(interrupted by an error; not kept)*',
          e.kept?.id,
        );
        break;
      case 'tool-awaiting-approval': {
        const { toolUseId, diff, command, warning, mcp } = e.request;
        this.chat.update(toolUseId, 'tool', {
          status: 'awaiting-approval',
          ...(mcp ? { server: mcp.server } : {}),
          ...(diff ? { diff } : {}),
          ...(command ? { command } : {}),
          ...(warning ? { warning } : {}),
        });
        break;
      }
      case 'tool-approval-resolved':
        this.chat.update(e.toolUseId, 'tool', { status: e.approved ? 'running' : 'rejected' });
        break;
      case 'tool-running':
        this.chat.update(e.toolUseId, 'tool', { status: 'running' });
        break;
      case 'tool-output':
        this.bufferOutput(e.toolUseId, e.chunk);
        break;
      case 'tool-result':
        this.dropPendingOutput(e.toolUseId);
        this.toolResult(e);
        this.markTruncatedCards();
        break;
      case 'error':
        this.error(e.message, e.retryable);
        break;
      case 'notice':
        this.notice(e.message);
        break;
      case 'turn-ended':
        this.markTruncatedCards();
        break;
      default:
        break;
    }
  }

  /** A compaction divider with tokens before/after and its transcript. */
  compacted(r: CompactionRecord): void {
    this.chat.upsert({
      kind: 'compaction',
      id: r.id,
      strategy: r.strategy,
      trigger: r.trigger,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      transcriptPath: r.transcriptPath,
      archivedCount: r.archivedCount,
    });
  }

  compactionFailed(f: CompactionFailure): void {
    if (f.reason === 'cancelled') this.notice(`Compaction (${f.strategy}) was cancelled; the history is unchanged.`);
    else if (f.reason === 'discarded') this.notice(`The summary draft (${f.strategy}) was discarded; the history is unchanged.`);
    else this.error(`Compaction (${f.strategy}, ${f.trigger}) failed: ${f.message}`, false);
  }

  /** The divider of an undone compaction is marked, and a notice says where the history came from. */
  compactionUndone(undone: CompactionRecord): void {
    const item = this.chat.get(undone.id);
    if (item && item.kind === 'compaction') this.chat.upsert({ ...item, undone: true });
    this.notice(`Undid the last compaction: the history is back from ${undone.transcriptPath}.`);
  }

  /** extra: the prompt's attachments (the item lists the files and shows the images). */
  userPrompt(text: string, extra?: { files: string[]; blocks: readonly ContentBlock[] }): void {
    this.promptItem = newMessageId('chat_u');
    const images = extra ? imageDataUrls(extra.blocks) : [];
    const files = extra?.files ?? [];
    this.chat.upsert({ kind: 'user', id: this.promptItem, text, ...(files.length ? { files } : {}), ...(images.length ? { images } : {}) });
  }

  notice(message: string): void {
    this.chat.upsert({ kind: 'notice', id: newMessageId('note'), message });
  }

  error(message: string, retryable: boolean): void {
    this.chat.upsert({ kind: 'error', id: newMessageId('err'), message, retryable });
  }

  /** Tool cards whose results micro-compaction now replaces in what the model sees get a badge. */
  markTruncatedCards(): void {
    for (const m of this.effectiveMessages()) {
      if (!m.truncated) continue;
      for (const r of m.truncated.results) {
        const item = this.chat.get(r.toolUseId);
        if (item && item.kind === 'tool' && !item.truncated) this.chat.upsert({ ...item, truncated: { originalChars: r.originalChars } });
      }
    }
  }

  private streamed(runId: string, step: number, index: number, kind: 'assistant' | 'thinking', text: string): void {
    const key = `${runId}:${step}:${index}`;
    const id = this.streamItems.get(key);
    if (id) {
      this.chat.appendText(id, text);
      return;
    }
    const newId = newMessageId(kind === 'assistant' ? 'chat_a' : 'chat_t');
    this.streamItems.set(key, newId);
    this.chat.upsert({ kind, id: newId, text, streaming: true });
  }

  /** The streamed items of a step become final; `suffix` is appended to assistant text; `messageId`: the session message kept. */
  private settleStream(runId: string, step: number, suffix: string, messageId?: string): void {
    for (const [key, id] of this.streamItems) {
      if (!key.startsWith(`${runId}:${step}:`)) continue;
      const item = this.chat.get(id);
      if (item && (item.kind === 'assistant' || item.kind === 'thinking')) {
        if (item.kind === 'assistant')
          this.chat.upsert({ ...item, text: item.text + suffix, streaming: false, ...(messageId ? { messageId } : {}) });
        else this.chat.upsert({ ...item, streaming: false });
      }
    }
  }

  /** Output chunks are gathered and sent as one delta per OUTPUT_THROTTLE_MS (the card is never re-sent whole). */
  private bufferOutput(toolUseId: string, chunk: string): void {
    const pending = this.pendingOutput.get(toolUseId);
    if (pending) {
      pending.text += chunk;
      return;
    }
    const timer = setTimeout(() => this.flushOutput(toolUseId), OUTPUT_THROTTLE_MS);
    this.pendingOutput.set(toolUseId, { text: chunk, timer });
  }

  private flushOutput(toolUseId: string): void {
    const pending = this.pendingOutput.get(toolUseId);
    this.pendingOutput.delete(toolUseId);
    const item = this.chat.get(toolUseId);
    if (!pending || !item || item.kind !== 'tool') return;
    // The card keeps the first MAX_CARD_OUTPUT characters live; the result replaces them at the end.
    const room = MAX_CARD_OUTPUT - (item.output?.length ?? 0);
    if (room > 0) this.chat.appendText(toolUseId, pending.text.slice(0, room));
  }

  private dropPendingOutput(toolUseId: string): void {
    const pending = this.pendingOutput.get(toolUseId);
    if (pending) clearTimeout(pending.timer);
    this.pendingOutput.delete(toolUseId);
  }

  /** Stop the output timers (the session is closing). */
  dispose(): void {
    for (const id of [...this.pendingOutput.keys()]) this.dropPendingOutput(id);
  }

  private toolResult(e: Extract<AgentEvent, { type: 'tool-result' }>): void {
    const item = this.chat.get(e.toolUseId);
    if (!item || item.kind !== 'tool') return;
    const status = item.status === 'rejected' ? 'rejected' : e.cancelled ? 'cancelled' : e.isError ? 'error' : 'done';
    this.chat.upsert({ ...item, status, output: e.output, isError: e.isError });
  }
}

/** An MCP tool's card names its server (read from the namespaced name `mcp__server__tool`). */
function mcpServerOf(name: string): { server?: string } {
  const parsed = parseMcpToolName(name);
  return parsed ? { server: parsed.server } : {};
}

function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? '';
  } catch {
    return String(v);
  }
}

function commandOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const command = (input as { command?: unknown }).command;
  return typeof command === 'string' ? command : undefined;
}
