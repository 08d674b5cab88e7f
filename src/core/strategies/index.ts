// The strategy registry: every strategy's name, parameters (with defaults and bounds) and plan function.
import type { Message } from '../conversation/conversation';
import { SplitpointError } from '../base/errors';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import { planWithLedgerSteps } from './ledgerStep';
import { planCostFor, costNote } from '../cost/cacheCost';
import { runSteps, runStepsSliced, type Steps } from '../base/slicedWork';
import { prepSteps, withPlanPrepSteps, type PlanPrep } from '../pipeline/planPrep';
import type { MessageTokenCounter } from '../counting/tokens';
import { DEFAULT_HORIZON_TURNS } from '../pipeline/microBatch';
import { planMicroCompact, type MicroCompactParams } from './microCompact';
import { StrategyParamError } from './params';
import { planAroundPins } from './pinned';
import { planPreserveUserMessages } from './preserveUserMessages';
import { planRecentTokenFraction } from './recentTokenFraction';
import { planRecentTurns } from './recentTurns';
import { planRecursiveSummarization, validateRecursiveSummarization } from './recursiveSummarization';
import { SERVER_STRATEGY_DEFINITIONS } from './serverStrategies';
import { planSlidingWindow } from './slidingWindow';
import { planSplitAt, UnknownSplitTargetError } from './splitAt';
import { planTokenBudget } from './tokenBudget';
import { planTurnWindow } from './turnWindow';

export { StrategyParamError, UnknownSplitTargetError };

export interface StrategyParamSpec {
  name: string;
  description: string;
  default: number;
  min: number;
  max: number;
  integer: boolean;
}

export interface StrategyDefinition {
  name: StrategyName;
  title: string;
  description: string;
  /** LLM strategies produce a summary slot that must be filled before apply. */
  usesSummarizer: boolean;
  params: StrategyParamSpec[];
  /** Cross-parameter checks beyond each parameter's bounds. */
  validate?: (params: Record<string, number>) => void;
  plan: (messages: readonly Message[], params: Record<string, number>, ctx: PlanContext) => CompactionPlan;
}

export type StrategyName =
  | 'sliding-window'
  | 'turn-window'
  | 'token-budget'
  | 'recursive-summarization'
  | 'preserve-user-messages'
  | 'recent-token-fraction'
  | 'recent-turns'
  | 'micro-compact'
  | 'split-at'
  | 'server-clear-tool-uses'
  | 'server-compact';

const int = (name: string, description: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): StrategyParamSpec => ({
  name,
  description,
  default: def,
  min,
  max,
  integer: true,
});

/** Every strategy plans around pins the same way (pinned.ts): pinned messages survive verbatim, before the tail. */
export const STRATEGIES: readonly StrategyDefinition[] = pinAware([
  {
    name: 'sliding-window',
    title: 'Sliding window',
    description: 'Keep the last N real messages; the cut snaps forward to a user prompt. No LLM call.',
    usesSummarizer: false,
    params: [int('maxEvents', 'real messages to keep (synthetic summaries do not count)', 40, 1)],
    plan: (m, p, c) => planSlidingWindow(m, { maxEvents: p.maxEvents }, c),
  },
  {
    name: 'turn-window',
    title: 'Turn window',
    description: 'Keep the last N complete turns; never cuts inside a turn. No LLM call.',
    usesSummarizer: false,
    params: [int('maxTurns', 'complete turns to keep', 10, 1)],
    plan: (m, p, c) => planTurnWindow(m, { maxTurns: p.maxTurns }, c),
  },
  {
    name: 'token-budget',
    title: 'Token budget',
    description: 'Keep the longest recent suffix that fits in maxTokens (summaries deducted first). No LLM call.',
    usesSummarizer: false,
    params: [int('maxTokens', 'token budget for the kept messages (0 = 40% of what the window leaves for messages)', 0, 0)],
    plan: (m, p, c) => planTokenBudget(m, { maxTokens: p.maxTokens }, c),
  },
  {
    name: 'recursive-summarization',
    title: 'Recursive summarization',
    description: 'Summarize everything but the last maxEventsToKeep messages, building on the prior summary.',
    usesSummarizer: true,
    params: [
      int('maxEventsToKeep', 'real messages kept verbatim (the active window)', 10, 1),
      int('overlapSize', 'messages of the active window shown to the summarizer as context (< maxEventsToKeep)', 2, 0),
    ],
    validate: (p) => validateRecursiveSummarization({ maxEventsToKeep: p.maxEventsToKeep, overlapSize: p.overlapSize }),
    plan: (m, p, c) => planRecursiveSummarization(m, { maxEventsToKeep: p.maxEventsToKeep, overlapSize: p.overlapSize }, c),
  },
  {
    name: 'preserve-user-messages',
    title: 'Preserve user messages',
    description: 'Keep user prompts (newest first, up to maxUserTokens) verbatim; summarize all agent output.',
    usesSummarizer: true,
    params: [int('maxUserTokens', 'token cap for preserved user prompts', 20_000, 1)],
    plan: (m, p, c) => planPreserveUserMessages(m, { maxUserTokens: p.maxUserTokens }, c),
  },
  {
    name: 'recent-token-fraction',
    title: 'Recent token fraction',
    description: 'Keep the most recent fraction of tokens (snapped to a user prompt); summarize the rest.',
    usesSummarizer: true,
    params: [
      {
        name: 'fraction',
        description: 'share of total tokens to keep verbatim (0 < p < 1)',
        default: 0.3,
        min: 0.01,
        max: 0.99,
        integer: false,
      },
    ],
    plan: (m, p, c) => planRecentTokenFraction(m, { fraction: p.fraction }, c),
  },
  {
    name: 'recent-turns',
    title: 'Recent turns',
    description: 'Keep the last N complete turns, each capped by a per-turn budget; summarize older turns.',
    usesSummarizer: true,
    params: [
      int('turns', 'complete turns to keep', 2, 1),
      {
        name: 'perTurnFraction',
        description: 'per-turn budget as a share of usable context',
        default: 0.25,
        min: 0.01,
        max: 1,
        integer: false,
      },
      int('perTurnMin', 'per-turn budget floor (tokens)', 2_000, 1),
      int('perTurnMax', 'per-turn budget ceiling (tokens)', 8_000, 1),
    ],
    validate: (p) => {
      if (p.perTurnMin > p.perTurnMax)
        throw new StrategyParamError('recent-turns', 'perTurnMin', `must be <= perTurnMax (${p.perTurnMax}), got ${p.perTurnMin}`);
    },
    plan: (m, p, c) =>
      planRecentTurns(m, { turns: p.turns, perTurnFraction: p.perTurnFraction, perTurnMin: p.perTurnMin, perTurnMax: p.perTurnMax }, c),
  },
  {
    name: 'micro-compact',
    title: 'Micro-compact',
    description:
      'Replace tool results older than the last keepRecent with "[Previous: used <tool>]", and superseded ones (a file read ' +
      'again or edited, a command re-run) with a pointer, in batches. Runs before every model call.',
    usesSummarizer: false,
    params: [
      int('keepRecent', 'most recent tool results left intact', 3, 0),
      int('minChars', 'only results longer than this many characters are replaced', 100, 0),
      int('triggerTokens', 'act only when the old results eligible for clearing total at least this many tokens (0 = always)', 0, 0),
      int('clearAtLeast', 'clear only if the batch saves at least this many tokens (0 = any saving)', 0, 0),
      int(
        'cacheAware',
        '1: clear only when the batch pays back the cached prefix it re-writes within horizonTurns; 0: ignore the cache',
        1,
        0,
        1,
      ),
      int('horizonTurns', 'requests over which a cache-aware batch must pay back', DEFAULT_HORIZON_TURNS, 1),
      int(
        'supersede',
        '1: results a later call superseded (file read again or edited, command re-run) become pointers first; 0: off',
        0,
        0,
        1,
      ),
    ],
    plan: (m, p, c) => planMicroCompact(m, microParams(p, c), c),
  },
  {
    name: 'split-at',
    title: 'Split here',
    description:
      'Compact everything before a chosen message (the timeline row action; without one, before the latest prompt); the split snaps to a safe boundary.',
    usesSummarizer: true,
    params: [int('summarize', '1: summarize what is archived with the LLM; 0: no LLM call (a placeholder opener)', 1, 0, 1)],
    plan: (m, p, c) => planSplitAt(m, { summarize: p.summarize }, c),
  },
  // Server-side context management: the server does not know the session's pins, so neither does its emulation.
]).concat(SERVER_STRATEGY_DEFINITIONS);

/** The registry's numeric parameters as micro-compaction settings; the tools filter comes from the context (a list). */
function microParams(p: Record<string, number>, c: PlanContext): MicroCompactParams {
  return {
    keepRecent: p.keepRecent,
    minChars: p.minChars,
    triggerTokens: p.triggerTokens ?? 0,
    clearAtLeast: p.clearAtLeast ?? 0,
    cacheAware: (p.cacheAware ?? 0) === 1,
    horizonTurns: p.horizonTurns ?? DEFAULT_HORIZON_TURNS,
    supersede: (p.supersede ?? 0) === 1,
    ...(c.microCompactTools ? { tools: c.microCompactTools } : {}),
  };
}

function pinAware(defs: StrategyDefinition[]): StrategyDefinition[] {
  return defs.map((d) => ({ ...d, plan: planAroundPins(d.plan) }));
}

export const STRATEGY_NAMES = STRATEGIES.map((s) => s.name);

export function getStrategy(name: string): StrategyDefinition {
  const def = STRATEGIES.find((s) => s.name === name);
  if (!def) throw new UnknownStrategyError(name);
  return def;
}

export class UnknownStrategyError extends SplitpointError {
  constructor(readonly strategy: string) {
    super(`unknown strategy "${strategy}"; known strategies: ${STRATEGY_NAMES.join(', ')}`);
    this.name = 'UnknownStrategyError';
  }
}

/**
 * Defaults overlaid with overrides (numbers, or strings as typed on a command line), each checked
 * against its bounds; unknown parameter names are an error.
 */
export function resolveParams(def: StrategyDefinition, overrides: Record<string, number | string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const spec of def.params) out[spec.name] = spec.default;
  for (const [key, raw] of Object.entries(overrides)) {
    const spec = def.params.find((s) => s.name === key);
    if (!spec) {
      const known = def.params.map((s) => s.name).join(', ');
      throw new StrategyParamError(def.name, key, `is not a parameter of this strategy (it takes: ${known})`);
    }
    const value = typeof raw === 'number' ? raw : raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(value)) throw new StrategyParamError(def.name, key, `must be a number, got "${raw}"`);
    if (spec.integer && !Number.isInteger(value)) throw new StrategyParamError(def.name, key, `must be an integer, got ${value}`);
    if (value < spec.min || value > spec.max) {
      const range = spec.max === Number.MAX_SAFE_INTEGER ? `>= ${spec.min}` : `between ${spec.min} and ${spec.max}`;
      throw new StrategyParamError(def.name, key, `must be ${range}, got ${value}`);
    }
    out[key] = value;
  }
  def.validate?.(out);
  return out;
}

/** A strategy with its parameters resolved and validated: ready to plan any history. */
export interface ResolvedStrategy {
  definition: StrategyDefinition;
  params: Record<string, number>;
  plan(messages: readonly Message[], ctx: PlanContext): CompactionPlan;
  /** plan, yielding between slices of the ledger's passes (runSteps of it is plan). */
  planSteps(messages: readonly Message[], ctx: PlanContext): Steps<CompactionPlan>;
}

/**
 * The one way to go from a strategy name and parameter overrides to a plan function: look the
 * strategy up, resolve and validate its parameters (UnknownStrategyError, StrategyParamError).
 */
export function resolveStrategy(name: string, overrides: Record<string, number | string> = {}): ResolvedStrategy {
  const definition = getStrategy(name);
  const params = resolveParams(definition, overrides);
  function* planSteps(messages: readonly Message[], ctx: PlanContext): Steps<CompactionPlan> {
    const plan = yield* planWithLedgerSteps(messages, ctx, (c) => definition.plan(messages, params, c));
    yield;
    return withCost(plan, messages, ctx);
  }
  return { definition, params, plan: (messages, ctx) => runSteps(planSteps(messages, ctx)), planSteps };
}

/** Every plan carries its cost with the prompt cache (micro-compact prices its own, against the request view). */
function withCost(plan: CompactionPlan, messages: readonly Message[], ctx: PlanContext): CompactionPlan {
  const cost = plan.cost ?? planCostFor(messages, plan.output, plan, ctx);
  return { ...plan, cost, notes: plan.noop ? plan.notes : [...plan.notes, costNote(cost)] };
}

/** Plan with a strategy by name: resolve and validate parameters, then compute the (pure) plan. */
export function planWith(
  name: string,
  messages: readonly Message[],
  overrides: Record<string, number | string>,
  ctx: PlanContext,
): CompactionPlan {
  return resolveStrategy(name, overrides).plan(messages, ctx);
}

/**
 * The per-message work of a plan over `messages` (counts, entries, separation), done in slices of about
 * `sliceMs` with the event loop getting a turn between them. Plan with it active (withPlanPrep) over the
 * same array, which must not change meanwhile (planWithSliced plans over its own copy).
 */
export function preparePlanInput(messages: readonly Message[], counter: MessageTokenCounter, sliceMs = 8): Promise<PlanPrep> {
  return runStepsSliced(prepSteps(messages, counter), sliceMs);
}

/**
 * planWith on a thread that must not wait: the same CompactionPlan, with the per-message passes done
 * ahead in slices (preparePlanInput), then the one planner over the prepared input, its ledger's passes in slices.
 * Plans the messages as they are when called (a copy of the list: what is appended meanwhile is not planned).
 */
export async function planWithSliced(
  name: string,
  messages: readonly Message[],
  overrides: Record<string, number | string>,
  ctx: PlanContext,
  sliceMs = 8,
): Promise<CompactionPlan> {
  const strategy = resolveStrategy(name, overrides);
  const input = messages.slice();
  const prep = await preparePlanInput(input, ctx.tokens, sliceMs);
  return runStepsSliced(withPlanPrepSteps(prep, strategy.planSteps(input, ctx)), sliceMs);
}
