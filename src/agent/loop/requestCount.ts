// How big the next request is, calibrated: what the context meter and the auto-compact trigger read.
//
// The pipeline counts the messages (o200k) and adds `pipelineOverhead()`, then scales both by the
// calibration factor; pipelineOverhead is the system prompt and tool definitions (o200k) plus the
// calibration's prefix in raw units, so the pipeline's count is prefix + factor × raw: the calibrated
// estimate of the whole request (CalibratedCounter.estimate), one model for all of them.
//
// Before the first response of a session, measureFirstRequest asks the API's count_tokens once for
// the request about to be sent and feeds the answer to the calibration, so a session does not start
// on o200k alone. A failure is logged and the estimate stays.
import { errorMessage, toApiMessages, type ApiMessage, type CalibratedCounter, type Message } from '../../core';

export interface RequestCountDeps {
  /** The calibration of the current model (it changes with the model setting). */
  calibration: () => CalibratedCounter;
  /** System prompt and tool definitions, o200k tokens. */
  rawOverhead: () => number;
  getApiKey: () => Promise<string | undefined>;
  /** The API's count_tokens for a request with these messages (and the agent's system prompt and tools). */
  countTokens: (apiKey: string, messages: readonly ApiMessage[]) => Promise<number>;
  /** The calibration learned something: persist it. */
  saved: () => void;
  log: { info(message: string): void; warn(message: string): void };
}

export class RequestCount {
  /** Sessions (by any object standing for one) whose first request was measured. */
  private readonly measured = new WeakSet<object>();

  constructor(private readonly deps: RequestCountDeps) {}

  /** What the pipeline adds to the messages' raw count before scaling by the factor (see above). */
  pipelineOverhead(): number {
    const { prefix, factor } = this.deps.calibration();
    return this.deps.rawOverhead() + prefix / factor;
  }

  /**
   * Once per `session`: count_tokens for the request `history` + `prompt` would make, fed to the
   * calibration as an observation. Never throws.
   */
  async measureFirstRequest(session: object, history: readonly Message[], prompt: Message['content']): Promise<void> {
    if (this.measured.has(session)) return;
    this.measured.add(session);
    try {
      const key = await this.deps.getApiKey();
      if (!key) return;
      const messages: Message[] = [...history, { id: 'pending-prompt', role: 'user', content: prompt }];
      const calibration = this.deps.calibration();
      const raw = calibration.rawCountMessages(messages) + this.deps.rawOverhead();
      const counted = await this.deps.countTokens(key, toApiMessages(messages));
      if (calibration.observe(raw, counted)) this.deps.saved();
      this.deps.log.info(`count_tokens: ${counted} tokens for a request of ${raw} o200k tokens`);
    } catch (e) {
      this.deps.log.warn(`count_tokens failed; the context meter keeps the calibrated o200k estimate: ${errorMessage(e)}`);
    }
  }
}
