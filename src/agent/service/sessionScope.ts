// One chat session as one unit: its model history (SessionLog), what the chat shows (ChatLog, and
// the projector that writes it), its compaction pipeline and plan context, the agent loop that runs
// on it, and the subscriptions between them and the host. A new chat or a resume builds a new scope
// and disposes the old one whole; nothing of one session leaks into the next.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompactionPipeline,
  newMessageId,
  TranscriptStore,
  type CompactionFailure,
  type CompactionRecord,
  type CompactionTriggerSource,
  type Disposable,
  type MessageTokenCounter,
  type PipelineSettings,
  pinnedIn,
  type PlanContext,
  resolvePins,
  SessionLockedError,
  type SessionFileStore,
  type SessionLock,
  type SessionLog,
  type Summarizer,
  type SummaryReviewer,
} from '../../core';
import type { AgentLoop } from '../loop/agent';
import { ChatLog, type ChatLogChange } from '../projections/chatLog';
import { ChatProjector } from '../projections/chatProjector';
import { planContextFor } from '../../settings/engineSettings';
import type { HostSettings } from '../../settings/hostSettings';
import { UsageTally } from '../loop/usageTally';

export type { Summarizer };

/** What the scope reports to its host; called only while the scope is alive. */
export interface SessionScopeHooks {
  chatChanged(change: ChatLogChange): void;
  /** The model's history or its compactions changed. */
  sessionChanged(): void;
  compactionStarted(e: { strategy: string; trigger: CompactionTriggerSource; summarizing: boolean }): void;
  compacted(record: CompactionRecord): void;
  compactionFailed(failure: CompactionFailure): void;
}

export interface SessionScopeOptions {
  store: SessionFileStore;
  /** The saved session to open; undefined starts a new, empty chat. */
  id: string | undefined;
  settings: HostSettings;
  pipelineSettings: PipelineSettings;
  counter: MessageTokenCounter;
  transcriptDir: string;
  /** The workspace root: no folder from it down to transcriptDir may be a symbolic link. */
  transcriptRoot?: string;
  summarizer: Summarizer;
  /** Reviews summary drafts (compactions run with `review`). */
  reviewer?: SummaryReviewer;
  /** System prompt and tool definitions, in tokens. */
  overheadTokens: () => number;
  /** The calibration factor applied to request sizes. */
  scale: () => number;
  log: { warn(message: string): void };
  hooks: SessionScopeHooks;
}

export class SessionScope implements Disposable {
  readonly session: SessionLog;
  readonly chatLog: ChatLog;
  readonly chat: ChatProjector;
  readonly pipeline: CompactionPipeline;
  /** The plan context the pipeline uses; settings changes update it in place. */
  readonly ctx: PlanContext;
  /** Every model call's usage (the context meter's cache view). */
  readonly usage: UsageTally;
  private current: { agent: AgentLoop; key: string } | undefined;
  private subscriptions: Disposable[];
  private disposed = false;
  private readonly lock: SessionLock | undefined;

  constructor(o: SessionScopeOptions) {
    const opened = openSessionLog(o.store, o.id, o.log, (m) => this.lockLost(m));
    this.session = opened.session;
    this.lock = opened.lock;
    mkdirSync(o.store.dir, { recursive: true });
    this.chatLog = ChatLog.load(join(o.store.dir, `${this.session.id.replace(/[^A-Za-z0-9_-]/g, '_')}.chat.json`));
    this.ctx = planContextFor(o.settings, o.counter);
    this.pipeline = new CompactionPipeline(
      {
        session: this.session,
        transcripts: new TranscriptStore({ dir: o.transcriptDir, root: o.transcriptRoot }),
        ctx: this.ctx,
        summarizer: o.summarizer,
        reviewer: o.reviewer,
        overheadTokens: o.overheadTokens,
        scale: o.scale,
      },
      o.pipelineSettings,
    );
    this.chat = new ChatProjector(this.chatLog, () => this.pipeline.effectiveMessages());
    for (const n of opened.notices) this.chat.notice(n);
    const { hooks } = o;
    const usage = UsageTally.of(this.session);
    this.usage = usage.tally;
    this.subscriptions = [
      usage,
      this.chatLog.onDidChange((c) => hooks.chatChanged(c)),
      this.session.onDidChange(() => hooks.sessionChanged()),
      this.pipeline.onWillCompact((e) => hooks.compactionStarted(e)),
      this.pipeline.onDidCompact((r) => hooks.compacted(r)),
      this.pipeline.onDidFail((f) => hooks.compactionFailed(f)),
    ];
  }

  /** The agent loop of this session, if one was made (and not dropped since). */
  get agent(): AgentLoop | undefined {
    return this.current?.agent;
  }

  get busy(): boolean {
    return this.current?.agent.busy ?? false;
  }

  /** The agent for `key`: the current one if it was made with the same key, else a new one from `create`. */
  agentFor(key: string, create: () => AgentLoop): AgentLoop {
    if (this.current && this.current.key === key) return this.current.agent;
    this.dropAgent();
    const agent = create();
    this.current = { agent, key };
    return agent;
  }

  /** Dispose the agent; the next agentFor builds a new one (new key, model or endpoint). */
  dropAgent(): void {
    this.current?.agent.dispose();
    this.current = undefined;
  }

  /** Apply changed settings to the pipeline and the plan context. */
  applySettings(settings: HostSettings, pipelineSettings: PipelineSettings): void {
    this.pipeline.updateSettings(pipelineSettings);
    this.ctx.contextWindow = settings.contextWindow;
    this.ctx.maxOutputTokens = settings.maxOutputTokens;
  }

  /**
   * Pin a message of this session and its tool partner (persisted with the session meta, which fires
   * a session change). An id that is not in the history throws UnknownPinError naming it.
   */
  pin(id: string): void {
    const r = resolvePins(this.session.messages, [id]);
    if (!r.ok) throw r.error;
    const current = [...this.session.pinnedIds()];
    this.session.setPinned([...current, ...[...r.pinned].filter((p) => !current.includes(p))]);
  }

  /** Unpin a message and its tool partner (a pair is kept together); unpinning what is not pinned does nothing. */
  unpin(id: string): void {
    const pair = pinnedIn(this.session.messages, new Set([id]));
    pair.add(id);
    this.session.setPinned([...this.session.pinnedIds()].filter((p) => !pair.has(p)));
  }

  /** The chat item of a tool call waits for the user's approval. */
  isAwaitingApproval(toolUseId: string): boolean {
    const item = this.chatLog.get(toolUseId);
    return item !== undefined && item.kind === 'tool' && item.status === 'awaiting-approval';
  }

  /** Awaits `work`; its failure once this scope is disposed (a chat closed before it finished) is no error: false. */
  async whileOpen(work: Promise<unknown>): Promise<boolean> {
    try {
      await work;
    } catch (e) {
      if (this.disposed) return false;
      throw e;
    }
    return !this.disposed;
  }

  /** Unsubscribe, dispose the agent, flush the chat log and close the session log. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions) s.dispose();
    this.subscriptions = [];
    this.dropAgent();
    try {
      this.chatLog.dispose();
    } finally {
      this.session.dispose();
      this.lock?.release();
    }
  }

  private lockLost(message: string): void {
    if (!this.disposed) this.chat.notice(message);
  }
}

interface OpenedSession {
  session: SessionLog;
  lock: SessionLock | undefined;
  /** Shown in the chat: repairs made on load, or why a new chat was started instead. */
  notices: string[];
}

/**
 * Open (or create) a session under its exclusive lock. A session open in another window is not
 * shared: a new chat starts and a notice says why (a read-only view would go stale as the other
 * window writes, and every writer would need a read-only mode).
 */
function openSessionLog(
  store: SessionFileStore,
  id: string | undefined,
  log: { warn(message: string): void },
  onLockLost: (message: string) => void,
): OpenedSession {
  const notices: string[] = [];
  if (id) {
    let lock: SessionLock | undefined;
    try {
      lock = store.lock(id, onLockLost);
    } catch (e) {
      if (!(e instanceof SessionLockedError)) throw e;
      notices.push(`${e.message} A new chat was started here; the session stays open there.`);
    }
    if (lock) {
      try {
        const { log: session, errors, notices: repairs } = store.load(id);
        for (const e of errors) log.warn(`Session ${e.file}:${e.line}: ${e.message} (line skipped)`);
        for (const n of repairs) log.warn(`Session ${id}: ${n}`);
        return { session, lock, notices: repairs };
      } catch (e) {
        lock.release();
        throw e;
      }
    }
  }
  const newId = newMessageId('chat');
  const lock = store.lock(newId, onLockLost);
  return { session: store.create(newId, 'New chat'), lock, notices };
}
