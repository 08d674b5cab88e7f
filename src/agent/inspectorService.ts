// What the inspector panel asks of the host, computed on the engine's public calls: the session
// view (messages, what the model sees, compactions, overhead, per-strategy defaults), strategy
// previews on the current session or on an inspected file, message details, and the transcripts a
// webview may open. Read-only: applying and undoing go through the pipeline.
import {
  autoCompactThreshold,
  canUndo,
  compactionInEffect,
  microCompactedView,
  planTokensOnView,
  planWith,
  STRATEGIES,
  type CompactionPipeline,
  type Message,
  type MessageTokenCounter,
  type PlanContext,
  type SessionLog,
  type SessionMeta,
} from '../core';
import { buildInspectorSession, messageDetail, planToView } from '../inspectorModel';
import type { InspectorSession, MessageDetail, PlanView } from '../protocol';
import type { HostSettings } from './hostSettings';

/** The parts of the current session the inspector reads. */
export interface InspectedSession {
  readonly session: SessionLog;
  readonly pipeline: CompactionPipeline;
  readonly ctx: PlanContext;
}

export interface InspectorServiceDeps {
  /** The current session (it changes on a new chat or a resume). */
  current: () => InspectedSession;
  settings: () => HostSettings;
  counter: MessageTokenCounter;
  strategyParams: (name: string) => Record<string, number>;
  /** System prompt and tool definitions, in tokens. */
  overheadParts: () => { system: number; tools: number };
}

export class InspectorService {
  constructor(private readonly deps: InspectorServiceDeps) {}

  /** The current session, editable (apply, undo). */
  currentSession(): InspectorSession {
    const { session, pipeline } = this.deps.current();
    return this.build('Current session', false, session.messages, pipeline.effectiveMessages(), session.meta);
  }

  /** Any session file (a transcript, or another agent's session) as a read-only inspector view. */
  sessionFor(source: string, messages: Message[], effective: readonly Message[]): InspectorSession {
    return this.build(source, true, messages, effective, { id: source, title: source, createdAt: 0, updatedAt: 0, compactions: [] });
  }

  /** Plan a strategy on the current session or on given messages (inspected files). Pure. */
  preview(strategy: string, params: Record<string, number>, requestId: number, messages?: readonly Message[]): PlanView {
    const { session, pipeline, ctx } = this.deps.current();
    const started = performance.now();
    const plan = planWith(strategy, messages ?? session.messages, params, ctx);
    const view = planToView(plan, requestId, performance.now() - started);
    // Before/after on what the model sees (micro-compacted), so the figures agree with the rows.
    const viewBefore = messages ? this.microCompacted(messages) : pipeline.effectiveMessages();
    Object.assign(view, planTokensOnView(plan, viewBefore, this.deps.settings().microCompact, ctx));
    view.computeMs = performance.now() - started;
    return view;
  }

  /** What the model would see of `messages` under the current micro-compaction settings. */
  microCompacted(messages: readonly Message[]): Message[] {
    return microCompactedView(messages, this.deps.settings().microCompact, this.deps.current().ctx);
  }

  detail(id: string, messages?: readonly Message[], effective?: readonly Message[]): MessageDetail | undefined {
    const { session, pipeline } = this.deps.current();
    const list = messages ?? session.messages;
    const eff = effective ?? pipeline.effectiveMessages();
    const i = list.findIndex((m) => m.id === id);
    if (i === -1) return undefined;
    return messageDetail(list[i], eff[i] ?? list[i], this.deps.counter.countMessage(eff[i] ?? list[i]));
  }

  /** Transcript paths the current session knows (the only ones a webview may ask to open). */
  knownTranscripts(): Set<string> {
    return new Set(this.deps.current().session.meta.compactions.map((c) => c.transcriptPath));
  }

  private build(
    source: string,
    readOnly: boolean,
    messages: readonly Message[],
    effective: readonly Message[],
    meta: SessionMeta,
  ): InspectorSession {
    const strategyParams: Record<string, Record<string, number>> = {};
    for (const s of STRATEGIES) strategyParams[s.name] = this.deps.strategyParams(s.name);
    const settings = this.deps.settings();
    return buildInspectorSession({
      source,
      readOnly,
      sessionId: meta.id,
      title: meta.title,
      messages,
      effective,
      compactions: meta.compactions,
      ctx: this.deps.current().ctx,
      overhead: this.deps.overheadParts(),
      autoCompactThreshold: autoCompactThreshold(settings.autoCompact, settings.contextWindow),
      strategyParams,
      canUndo: !readOnly && canUndo(meta.compactions),
      tailStartId: readOnly ? null : (compactionInEffect(meta.compactions)?.tailStartId ?? null),
    });
  }
}
