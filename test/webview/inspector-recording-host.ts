// The fake extension host for an inspected recording: it answers with the real InspectorService
// (sessionFor, preview and detail on a target), so the page shows exactly what the extension would
// send for a recording, now or before one of its compactions (time travel).
import type { Page } from 'playwright-core';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { InspectorService, type InspectedRecording, type InspectorTarget } from '../../src/agent/service/inspectorService';
import type { CompactionPipeline, SessionLog } from '../../src/core';
import type { PlanContext } from '../../src/core/pipeline/plan';
import type { InspectorToHost, PlanView } from '../../src/protocol';
import { InspectorHost } from './inspector-harness';

export class RecordingHost extends InspectorHost {
  readonly service: InspectorService;
  /** Plan views sent, per request id. */
  readonly views = new Map<number, PlanView>();
  file!: InspectedRecording;
  at: number | null = null;

  constructor(page: Page, ctx: PlanContext) {
    super(page, ctx);
    // No current session in play: a recording is all this host shows.
    const session = {
      messages: [],
      meta: { id: 'none', title: '', createdAt: 0, updatedAt: 0, compactions: [] },
      pinnedIds: () => new Set<string>(),
    } as unknown as SessionLog;
    const pipeline = { effectiveMessages: () => [], liveContext: () => ({}) } as unknown as CompactionPipeline;
    this.service = new InspectorService({
      current: () => ({ session, pipeline, ctx }),
      settings: () => ({ ...DEFAULT_HOST_SETTINGS, contextWindow: ctx.contextWindow }),
      counter: ctx.tokens,
      strategyParams: () => ({}),
      overheadParts: () => ({ system: 2_400, tools: 1_800 }),
    });
  }

  get target(): InspectorTarget {
    return { file: this.file, at: this.at };
  }

  /** Sends the recording as the extension would, at its current context or before compaction `at`. */
  async showRecording(file: InspectedRecording, at: number | null = null): Promise<void> {
    this.file = file;
    this.at = at;
    this.session = this.service.sessionFor(file, at);
    const result = file.result;
    this.messages = this.session.timeTravel?.at ? result.compactions[this.session.timeTravel.at - 1].before : result.messages;
    this.effective = this.messages;
    await this.send({ type: 'session', session: this.session });
  }

  override async answerPreview(m: Extract<InspectorToHost, { type: 'preview' }>): Promise<void> {
    try {
      const view = this.service.preview(m.strategy, m.params, m.requestId, this.target);
      this.views.set(m.requestId, view);
      await this.send({ type: 'plan', plan: view });
    } catch (e) {
      await this.send({ type: 'planError', requestId: m.requestId, message: (e as Error).message });
    }
  }

  override async answerDetail(id: string): Promise<void> {
    const detail = this.service.detail(id, this.target);
    if (detail) await this.send({ type: 'detail', detail });
  }
}
