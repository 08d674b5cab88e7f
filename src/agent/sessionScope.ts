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
  type PlanContext,
  type SessionFileStore,
  type SessionLog,
  type SummarizerInput,
  type SummaryResult,
} from '../core';
import type { AgentLoop } from './agent';
import { ChatLog, type ChatLogChange } from './chatLog';
import { ChatProjector } from './chatProjector';
import { planContextFor } from './engineSettings';
import type { HostSettings } from './hostSettings';

export type Summarizer = (input: SummarizerInput, focus: string | undefined, signal?: AbortSignal) => Promise<SummaryResult>;

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
  summarizer: Summarizer;
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
  private current: { agent: AgentLoop; key: string } | undefined;
  private subscriptions: Disposable[];
  private disposed = false;

  constructor(o: SessionScopeOptions) {
    this.session = openSessionLog(o.store, o.id, o.log);
    mkdirSync(o.store.dir, { recursive: true });
    this.chatLog = ChatLog.load(join(o.store.dir, `${this.session.id.replace(/[^A-Za-z0-9_-]/g, '_')}.chat.json`));
    this.ctx = planContextFor(o.settings, o.counter);
    this.pipeline = new CompactionPipeline(
      {
        session: this.session,
        transcripts: new TranscriptStore({ dir: o.transcriptDir }),
        ctx: this.ctx,
        summarizer: o.summarizer,
        overheadTokens: o.overheadTokens,
        scale: o.scale,
      },
      o.pipelineSettings,
    );
    this.chat = new ChatProjector(this.chatLog, () => this.pipeline.effectiveMessages());
    const { hooks } = o;
    this.subscriptions = [
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

  /** The chat item of a tool call waits for the user's approval. */
  isAwaitingApproval(toolUseId: string): boolean {
    const item = this.chatLog.get(toolUseId);
    return item !== undefined && item.kind === 'tool' && item.status === 'awaiting-approval';
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
    }
  }
}

function openSessionLog(store: SessionFileStore, id: string | undefined, log: { warn(message: string): void }): SessionLog {
  if (!id) return store.create(newMessageId('chat'), 'New chat');
  const { log: session, errors } = store.load(id);
  for (const e of errors) log.warn(`Session ${e.file}:${e.line}: ${e.message} (line skipped)`);
  return session;
}
