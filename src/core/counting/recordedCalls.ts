// The model calls a recorded session made, and how well the calibrated estimate predicts each one.
//
// A recording holds, per call, what the API really counted (RecordedUsage on the assistant message
// the call produced). The input of that call is the context before the message: everything the
// model saw in that context up to it. `recordedCalls` lists the calls of a session's contexts (the
// `before` of each recorded compaction, oldest first, then the current context); `estimateCalls`
// replays them in order and estimates each call's input with the calibration learned from the calls
// before it only (per model), which is exactly what a live agent could have known at that moment.
import { recordedInputTokens, type Message, type RecordedUsage } from '../conversation/conversation';
import { InputFit, type InputFitOptions } from './inputFit';
import type { MessageTokenCounter } from './tokens';

export interface RecordedCall {
  /** The assistant message the call produced. */
  messageId: string;
  /** What the model was sent: the context prefix before that message. */
  input: readonly Message[];
  usage: RecordedUsage;
}

export interface CallEstimate {
  messageId: string;
  /** The input the API recorded (input + cache read + cache creation). */
  recorded: number;
  /** The calibrated estimate from the earlier calls of the same model only; null when there were none. */
  estimated: number | null;
  /** The local (o200k) count of the call's visible input. */
  raw: number;
  model: string | undefined;
}

/**
 * Every recorded call of the contexts, in order. One API response can be recorded as several
 * assistant messages (Claude Code writes one line per content block, each with the response's usage):
 * an assistant message whose usage equals the previous call's in the same context is the same call.
 * Calls whose recorded input is 0 (synthetic replies) are left out. Each call's `input` is sliced when
 * first read (copying every prefix up front made listing the calls quadratic in the session's length).
 */
export function recordedCalls(contexts: readonly (readonly Message[])[]): RecordedCall[] {
  const calls: RecordedCall[] = [];
  for (const context of contexts) {
    let previous: RecordedUsage | undefined;
    context.forEach((message, i) => {
      const usage = message.role === 'assistant' ? message.usage : undefined;
      if (!usage) return;
      if (previous && sameUsage(previous, usage)) return;
      previous = usage;
      if (recordedInputTokens(usage) <= 0) return;
      calls.push(new Call(message.id, context, i, usage));
    });
  }
  return calls;
}

/** A call whose input (the context before it) is sliced on first use: most callers read only ids and usage. */
class Call implements RecordedCall {
  private sliced: readonly Message[] | undefined;

  constructor(
    readonly messageId: string,
    private readonly context: readonly Message[],
    private readonly at: number,
    readonly usage: RecordedUsage,
  ) {}

  get input(): readonly Message[] {
    return (this.sliced ??= this.context.slice(0, this.at));
  }
}

/**
 * Each call's recorded input beside its calibrated estimate, computed only from the calls before it
 * (of the same model; calls without a model share one calibration). `counter` counts the visible
 * input (o200k in practice); `options` tune the fit (see InputFit).
 */
export function estimateCalls(calls: readonly RecordedCall[], counter: MessageTokenCounter, options?: InputFitOptions): CallEstimate[] {
  const fits = new Map<string, InputFit>();
  return calls.map((call) => {
    const key = call.usage.model ?? '';
    let fit = fits.get(key);
    if (!fit) fits.set(key, (fit = new InputFit(options)));
    const raw = counter.countMessages(call.input);
    const recorded = recordedInputTokens(call.usage);
    const estimated = fit.observations > 0 ? fit.estimate(raw) : null;
    fit.observe(raw, recorded);
    return { messageId: call.messageId, recorded, estimated, raw, model: call.usage.model };
  });
}

/** |estimated − recorded| / recorded per estimated call: the median and the worst, or null when none. */
export function estimateErrors(estimates: readonly CallEstimate[]): { calls: number; median: number; worst: number } | null {
  const errors = estimates
    .filter((e): e is CallEstimate & { estimated: number } => e.estimated !== null && e.recorded > 0)
    .map((e) => Math.abs(e.estimated - e.recorded) / e.recorded)
    .sort((a, b) => a - b);
  if (errors.length === 0) return null;
  const mid = Math.floor(errors.length / 2);
  const median = errors.length % 2 === 1 ? errors[mid]! : (errors[mid - 1]! + errors[mid]!) / 2;
  return { calls: errors.length, median, worst: errors[errors.length - 1]! };
}

/** Two recorded usages of one API response (Claude Code writes one line per content block, each with the response's usage). */
export function sameUsage(a: RecordedUsage, b: RecordedUsage): boolean {
  return (
    a === b ||
    (a.inputTokens === b.inputTokens &&
      a.cacheReadTokens === b.cacheReadTokens &&
      a.cacheCreationTokens === b.cacheCreationTokens &&
      a.outputTokens === b.outputTokens &&
      a.model === b.model)
  );
}
