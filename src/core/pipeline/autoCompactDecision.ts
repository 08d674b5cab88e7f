// The auto-compaction decision before each model call (issue 25): the policy ("threshold": the budget
// trigger; "pays": the trigger, or earlier when compacting pays back within the calls expected), held back
// by minCallsBetween (no more than one auto-compaction per N model calls) unless the window forces it.
// The same code runs in the agent and in the replay; the decision keeps its numbers for the inspector.
import { CallStats, type PromptCachingSetting } from './callStats';
import type { CacheTtl } from '../cost/cost';
import type { ModelPrice } from '../cost/prices';
import { forcedAtTokens, paysDecision, type AutoCompactPolicy, type PaysDecision, type PaysInput } from './paysTrigger';
import { formatTokens, type TriggerState } from './triggers';
import type { PlanContext } from './plan';
import type { PipelineSettings } from './pipelineTypes';

export const DEFAULT_MIN_CALLS_BETWEEN = 10;

export interface AutoCompactDecision {
  policy: AutoCompactPolicy;
  fire: boolean;
  /** The window forces a compaction (fires whatever the policy and minCallsBetween say). */
  forced: boolean;
  /** minCallsBetween held back a compaction the policy wanted. */
  held: boolean;
  reason: string;
  tokens: number;
  forcedAtTokens: number;
  /** Model calls so far, and since the last compaction (null before the first). */
  calls: number;
  callsSinceCompaction: number | null;
  minCallsBetween: number;
  /** The "pays" figures (null under "threshold", or when nothing could be planned). */
  pays: PaysDecision | null;
  /** The TTL the payback was priced with, and (prompt caching "auto") why it was chosen. */
  ttl: CacheTtl | 'off';
  ttlReason: string | null;
}

/** What the pipeline knows at a check, beyond the call statistics. */
export interface DecisionContext {
  policy: AutoCompactPolicy;
  minCallsBetween: number;
  trigger: { fire: boolean; reason: string };
  tokens: number;
  contextWindow: number;
  maxOutputTokens: number;
  now: number;
  caching: PromptCachingSetting;
  price: ModelPrice;
  /** The compaction the strategy would make now: request after it, overhead, summary out (null: nothing to plan). */
  plan: () => Pick<PaysInput, 'tokensAfter' | 'overheadTokens' | 'summaryOutputTokens'> | null;
}

/** The summarize instruction appended to the request, in tokens (an estimate: a few hundred words). */
const INSTRUCTION_TOKENS = 1_000;

export class AutoCompactDecider {
  readonly stats = new CallStats();
  last: AutoCompactDecision | null = null;

  /** The TTL of the next call's breakpoints for the setting ('auto': chosen from the gaps so far). */
  ttlFor(caching: PromptCachingSetting, price: ModelPrice): CacheTtl | 'off' {
    return caching === 'auto' ? this.stats.chooseTtl(price).ttl : caching;
  }

  decide(c: DecisionContext): AutoCompactDecision {
    const s = this.stats;
    const forcedAt = forcedAtTokens(c.contextWindow, c.maxOutputTokens);
    // The window forces it: the configured trigger (the hard limit) fires and the request is near the window's end.
    const forced = c.trigger.fire && c.tokens >= forcedAt;
    const since = s.callsSinceCompaction;
    const allowed = since >= c.minCallsBetween;
    const ttl = this.ttlFor(c.caching, c.price);
    const base = {
      policy: c.policy,
      tokens: c.tokens,
      forcedAtTokens: forcedAt,
      calls: s.calls,
      callsSinceCompaction: Number.isFinite(since) ? since : null,
      minCallsBetween: c.minCallsBetween,
      ttl,
      ttlReason: c.caching === 'auto' ? this.stats.chooseTtl(c.price).reason : null,
    };
    // The payback is planned only when a compaction could run (a preview of the strategy: not on every call).
    const pays = c.policy === 'pays' && allowed && !forced && !c.trigger.fire ? this.pays(c, forcedAt, ttl) : null;
    const wants = c.trigger.fire || (pays?.compact ?? false);
    const fire = forced || (wants && allowed);
    const why = c.trigger.fire ? c.trigger.reason : (pays?.reason ?? c.trigger.reason);
    const reason = forced
      ? `the window forces it: tokens ${formatTokens(c.tokens)} >= ${formatTokens(forcedAt)} (window − answer reserve − margin)`
      : wants && !allowed
        ? `held: ${since} call${since === 1 ? '' : 's'} since the last compaction < minCallsBetween ${c.minCallsBetween} (${why})`
        : c.policy === 'pays' && !allowed && !c.trigger.fire
          ? `not yet: ${since} call${since === 1 ? '' : 's'} since the last compaction < minCallsBetween ${c.minCallsBetween}`
          : why;
    this.last = { ...base, fire, forced, held: wants && !allowed && !forced, reason, pays };
    return this.last;
  }

  private pays(c: DecisionContext, forcedAt: number, ttl: CacheTtl | 'off'): PaysDecision | null {
    const plan = c.plan();
    if (!plan) return null;
    const s = this.stats;
    return paysDecision({
      tokens: c.tokens,
      ...plan,
      instructionTokens: INSTRUCTION_TOKENS,
      cacheWarm: ttl !== 'off' && s.cacheWarm(c.now, ttl),
      caching: ttl,
      price: c.price,
      callsSoFar: s.calls,
      callsSinceCompaction: Number.isFinite(s.callsSinceCompaction) ? s.callsSinceCompaction : s.calls,
      idleGaps: ttl === 'off' ? 0 : s.idleGaps(ttl),
      growthPerCall: s.growthPerCall,
      forcedAtTokens: forcedAt,
    });
  }
}

/** The decision's context from the pipeline's settings, plan context and trigger check. */
export function decisionContext(
  settings: PipelineSettings,
  ctx: Pick<PlanContext, 'contextWindow' | 'maxOutputTokens'>,
  check: { fire: boolean; reason: string; state: TriggerState },
  price: ModelPrice,
  plan: DecisionContext['plan'],
): DecisionContext {
  return {
    policy: settings.autoCompact.policy ?? 'threshold',
    minCallsBetween: settings.autoCompact.minCallsBetween ?? DEFAULT_MIN_CALLS_BETWEEN,
    trigger: check,
    tokens: check.state.tokens,
    contextWindow: ctx.contextWindow,
    maxOutputTokens: ctx.maxOutputTokens,
    now: check.state.now,
    caching: settings.promptCaching ?? '5m',
    price,
    plan,
  };
}
