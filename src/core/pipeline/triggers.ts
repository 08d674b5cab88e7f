// Triggers: the conditions that start compaction (seeds 003/004). Three kinds —
//  - budget: a measurement crosses a threshold (absolute tokens, a fraction of the window, or too
//    little headroom left);
//  - structural: an event happened since the last check ('message', 'tool-output', 'compacted',
//    'user-compact', or any other name the host emits);
//  - temporal: enough time has passed since this trigger last fired;
// plus turn counting, and anyOf/allOf to compose them. The pipeline evaluates triggers every turn,
// so each evaluation does constant work (a structural trigger looks at the few events of one tick).
// Every result carries a sentence saying why it fired or did not, for logs and the inspector.

import { SplitpointError } from '../base/errors';

/** What a trigger looks at: a snapshot of the conversation at one check. */
export interface TriggerState {
  /** Current (estimated or reported) size of the request in tokens. */
  tokens: number;
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Turns in the conversation (a turn starts at a genuine user prompt). */
  turnCount: number;
  /** Epoch milliseconds of this check. */
  now: number;
  /** Structural events that happened since the previous check. */
  events: readonly string[];
}

export interface TriggerResult {
  fire: boolean;
  /** Human-readable, e.g. "tokens 161,200 >= 160,000 (80% of 200,000)". */
  reason: string;
}

export interface Trigger {
  readonly description: string;
  evaluate(state: TriggerState): TriggerResult;
}

/** Structural events the host emits; any other string is allowed too. */
export const STRUCTURAL_EVENTS = ['message', 'tool-output', 'compacted', 'user-compact'] as const;
export type StructuralEvent = (typeof STRUCTURAL_EVENTS)[number];

/** A trigger was configured with a bad value: names the trigger and the field. */
export class TriggerConfigError extends SplitpointError {
  constructor(
    readonly trigger: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${trigger}: ${field} ${detail}`);
    this.name = 'TriggerConfigError';
  }
}

// ---------------------------------------------------------------------------------------------
// Budget

/** Exactly one of the three forms. */
export type BudgetTriggerConfig =
  /** Fires when tokens >= maxTokens. */
  | { maxTokens: number }
  /** Fires when tokens >= fraction × contextWindow (fraction in (0, 1]). */
  | { fraction: number }
  /** Fires when contextWindow − tokens <= headroomTokens. */
  | { headroomTokens: number };

/** Above this window size the default headroom is a fixed amount; at or below it, a fraction. */
export const LARGE_WINDOW_TOKENS = 200_000;
export const LARGE_WINDOW_HEADROOM_TOKENS = 20_000;
export const SMALL_WINDOW_HEADROOM_FRACTION = 0.2;

/**
 * Seed 004's headroom buffer: 20K tokens of slack for windows over 200K, 20% of the window for
 * smaller ones (so a window of exactly 200K keeps 40K).
 */
export function defaultHeadroom(contextWindow: number): number {
  requireNonNegative('defaultHeadroom', 'contextWindow', contextWindow);
  if (contextWindow > LARGE_WINDOW_TOKENS) return LARGE_WINDOW_HEADROOM_TOKENS;
  return Math.floor(contextWindow * SMALL_WINDOW_HEADROOM_FRACTION);
}

/** A budget trigger in one of three forms; see BudgetTriggerConfig. */
export function budgetTrigger(config: BudgetTriggerConfig): Trigger {
  const name = 'budgetTrigger';
  if (typeof config !== 'object' || config === null) throw new TriggerConfigError(name, 'config', 'must be an object');
  const keys = (['maxTokens', 'fraction', 'headroomTokens'] as const).filter((k) => k in config);
  if (keys.length !== 1) {
    throw new TriggerConfigError(
      name,
      'config',
      `must have exactly one of maxTokens, fraction, headroomTokens (got ${keys.length === 0 ? 'none' : keys.join(', ')})`,
    );
  }
  if ('maxTokens' in config) return maxTokensTrigger(config.maxTokens);
  if ('fraction' in config) return fractionTrigger(config.fraction);
  return headroomTrigger(config.headroomTokens);
}

function maxTokensTrigger(maxTokens: number): Trigger {
  requirePositive('budgetTrigger', 'maxTokens', maxTokens);
  return {
    description: `tokens >= ${formatTokens(maxTokens)}`,
    evaluate(state) {
      const fire = state.tokens >= maxTokens;
      return { fire, reason: `tokens ${formatTokens(state.tokens)} ${fire ? '>=' : '<'} ${formatTokens(maxTokens)}` };
    },
  };
}

function fractionTrigger(fraction: number): Trigger {
  if (!(typeof fraction === 'number' && fraction > 0 && fraction <= 1)) {
    throw new TriggerConfigError('budgetTrigger', 'fraction', `must be in (0, 1], got ${fraction}`);
  }
  const percent = formatPercent(fraction);
  return {
    description: `tokens >= ${percent} of the context window`,
    evaluate(state) {
      if (!isUsableWindow(state.contextWindow)) return unknownWindow(state);
      const threshold = fractionThreshold(fraction, state.contextWindow);
      const fire = state.tokens >= threshold;
      return {
        fire,
        reason: `tokens ${formatTokens(state.tokens)} ${fire ? '>=' : '<'} ${formatTokens(threshold)} (${percent} of ${formatTokens(state.contextWindow)})`,
      };
    },
  };
}

/**
 * The smallest whole token count at or above fraction × window. (The small epsilon keeps float
 * noise such as 0.7 × 100,000 = 70,000.000000001 from moving the threshold up by one.)
 */
function fractionThreshold(fraction: number, contextWindow: number): number {
  return Math.ceil(fraction * contextWindow - 1e-6);
}

/**
 * The request size (tokens) at which auto-compaction fires: what `budgetTrigger({ fraction })` fires
 * at, for hosts that show it (context meter, inspector). Null when auto-compaction is off.
 */
export function autoCompactThreshold(autoCompact: { enabled: boolean; threshold: number }, contextWindow: number): number | null {
  return autoCompact.enabled ? fractionThreshold(autoCompact.threshold, contextWindow) : null;
}

function headroomTrigger(headroomTokens: number): Trigger {
  requireNonNegative('budgetTrigger', 'headroomTokens', headroomTokens);
  return {
    description: `headroom <= ${formatTokens(headroomTokens)} tokens`,
    evaluate(state) {
      if (!isUsableWindow(state.contextWindow)) return unknownWindow(state);
      const headroom = state.contextWindow - state.tokens;
      const fire = headroom <= headroomTokens;
      return {
        fire,
        reason:
          `headroom ${formatTokens(headroom)} ${fire ? '<=' : '>'} ${formatTokens(headroomTokens)} ` +
          `(tokens ${formatTokens(state.tokens)} of ${formatTokens(state.contextWindow)})`,
      };
    },
  };
}

function isUsableWindow(contextWindow: number): boolean {
  return Number.isFinite(contextWindow) && contextWindow > 0;
}

/** Window-relative budgets cannot judge without a window; they hold fire and say so. */
function unknownWindow(state: TriggerState): TriggerResult {
  return { fire: false, reason: `context window unknown (${state.contextWindow}); tokens ${formatTokens(state.tokens)}` };
}

// ---------------------------------------------------------------------------------------------
// Turns, events, time

/** Fires when the conversation has more than `maxTurns` turns (seed 003's TurnCountTrigger). */
export function turnCountTrigger(maxTurns: number): Trigger {
  if (!(Number.isInteger(maxTurns) && maxTurns >= 0)) {
    throw new TriggerConfigError('turnCountTrigger', 'maxTurns', `must be a non-negative integer, got ${maxTurns}`);
  }
  return {
    description: `turns > ${maxTurns}`,
    evaluate(state) {
      const fire = state.turnCount > maxTurns;
      return { fire, reason: `turns ${state.turnCount} ${fire ? '>' : '<='} ${maxTurns}` };
    },
  };
}

/** Fires when any of the named events is among the events since the last check. */
export function structuralTrigger(eventNames: string | readonly string[]): Trigger {
  const names = typeof eventNames === 'string' ? [eventNames] : [...eventNames];
  if (names.length === 0) throw new TriggerConfigError('structuralTrigger', 'eventNames', 'must name at least one event');
  for (const n of names) {
    if (typeof n !== 'string' || n.length === 0) {
      throw new TriggerConfigError('structuralTrigger', 'eventNames', `must be non-empty strings, got ${JSON.stringify(n)}`);
    }
  }
  const wanted = new Set(names);
  const listed = names.map((n) => `'${n}'`).join(' or ');
  return {
    description: `on ${listed}`,
    evaluate(state) {
      const seen = state.events.find((e) => wanted.has(e));
      return seen === undefined ? { fire: false, reason: `no ${listed} event` } : { fire: true, reason: `event '${seen}'` };
    },
  };
}

export interface TemporalTriggerOptions {
  /**
   * Fire on the very first evaluation. Default false: the first evaluation only arms the clock, so
   * a periodic job runs one interval after the host starts rather than at start-up.
   */
  fireOnFirstEvaluation?: boolean;
}

/** A temporal trigger carries its clock; reset() disarms it. */
export interface TemporalTrigger extends Trigger {
  /** `now` of the last fire (or of arming); undefined before the first evaluation. */
  readonly lastFiredAt: number | undefined;
  reset(): void;
}

/**
 * Fires when at least `intervalMs` has passed since this trigger last fired. Stateful per instance:
 * each fire restarts the interval from that check's `now`. The first evaluation arms the clock
 * without firing unless `fireOnFirstEvaluation`. If the clock goes backwards (`now` earlier than
 * the last fire), the trigger re-arms at `now` instead of waiting out the skew. In a composition
 * the clock restarts whenever this trigger fires, whatever the composition decides.
 */
export function temporalTrigger(intervalMs: number, options: TemporalTriggerOptions = {}): TemporalTrigger {
  requirePositive('temporalTrigger', 'intervalMs', intervalMs);
  const fireOnFirst = options.fireOnFirstEvaluation ?? false;
  let lastFiredAt: number | undefined;
  return {
    description: `every ${formatDuration(intervalMs)}`,
    get lastFiredAt() {
      return lastFiredAt;
    },
    reset() {
      lastFiredAt = undefined;
    },
    evaluate(state) {
      if (lastFiredAt === undefined) {
        lastFiredAt = state.now;
        return fireOnFirst
          ? { fire: true, reason: 'first check' }
          : { fire: false, reason: `armed; next after ${formatDuration(intervalMs)}` };
      }
      const elapsed = state.now - lastFiredAt;
      if (elapsed < 0) {
        lastFiredAt = state.now;
        return { fire: false, reason: `clock went back ${formatDuration(-elapsed)}; re-armed` };
      }
      if (elapsed >= intervalMs) {
        lastFiredAt = state.now;
        return { fire: true, reason: `${formatDuration(elapsed)} elapsed >= ${formatDuration(intervalMs)}` };
      }
      return { fire: false, reason: `${formatDuration(elapsed)} elapsed < ${formatDuration(intervalMs)}` };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Constants and composition

export const neverTrigger: Trigger = {
  description: 'never',
  evaluate: () => ({ fire: false, reason: 'never fires' }),
};

export const alwaysTrigger: Trigger = {
  description: 'always',
  evaluate: () => ({ fire: true, reason: 'always fires' }),
};

/** Composite triggers, so a nested composite's reason is parenthesized in its parent's. */
const composites = new WeakSet<Trigger>();

/**
 * Fires when at least one child fires. Every child is evaluated on every check (no short circuit),
 * so stateful children see every tick and the reason can list all that fired.
 * Reason: the firing children's reasons joined by " or "; else all reasons joined by "; ".
 */
export function anyOf(...triggers: Trigger[]): Trigger {
  requireTriggers('anyOf', triggers);
  const composite: Trigger = {
    description: `any of (${triggers.map((t) => t.description).join(', ')})`,
    evaluate(state) {
      const results = triggers.map((t) => ({ trigger: t, result: t.evaluate(state) }));
      const fired = results.filter((r) => r.result.fire);
      if (fired.length > 0) return { fire: true, reason: fired.map(childReason).join(' or ') };
      return { fire: false, reason: results.map(childReason).join('; ') };
    },
  };
  composites.add(composite);
  return composite;
}

/**
 * Fires when every child fires, e.g. allOf(budget, structural) for "over budget, and a turn just
 * ended". Every child is evaluated on every check (no short circuit).
 * Reason: all reasons joined by " and " when firing; else the non-firing children's joined by "; ".
 */
export function allOf(...triggers: Trigger[]): Trigger {
  requireTriggers('allOf', triggers);
  const composite: Trigger = {
    description: `all of (${triggers.map((t) => t.description).join(', ')})`,
    evaluate(state) {
      const results = triggers.map((t) => ({ trigger: t, result: t.evaluate(state) }));
      const missing = results.filter((r) => !r.result.fire);
      if (missing.length === 0) return { fire: true, reason: results.map(childReason).join(' and ') };
      return { fire: false, reason: missing.map(childReason).join('; ') };
    },
  };
  composites.add(composite);
  return composite;
}

function childReason({ trigger, result }: { trigger: Trigger; result: TriggerResult }): string {
  return composites.has(trigger) ? `(${result.reason})` : result.reason;
}

function requireTriggers(name: string, triggers: readonly Trigger[]): void {
  if (triggers.length === 0) throw new TriggerConfigError(name, 'triggers', 'must contain at least one trigger');
  triggers.forEach((t, i) => {
    if (typeof t !== 'object' || t === null || typeof t.evaluate !== 'function') {
      throw new TriggerConfigError(name, `triggers[${i}]`, 'is not a trigger');
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Validation and formatting

function requirePositive(trigger: string, field: string, value: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new TriggerConfigError(trigger, field, `must be a positive number, got ${value}`);
  }
}

function requireNonNegative(trigger: string, field: string, value: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new TriggerConfigError(trigger, field, `must be a non-negative number, got ${value}`);
  }
}

/** 161200 -> "161,200" (locale-independent; non-integers rounded). */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Math.round(n);
  const digits = Math.abs(rounded)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return rounded < 0 ? `-${digits}` : digits;
}

/** 0.8 -> "80%", 0.125 -> "12.5%". */
function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}

/**
 * 1500 -> "1.5s", 300000 -> "5m", 5400000 -> "1h 30m". Truncates rather than rounds, so an
 * elapsed time just short of an interval never reads as the interval itself; seconds are dropped
 * once hours show.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1000) return `${Math.floor(ms)}ms`;
  if (ms < 60_000) return `${Math.floor(ms / 100) / 10}s`;
  const totalSeconds = Math.floor(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts: string[] = [];
  if (hours > 0) parts.push(`${hours}h`);
  if (minutes > 0) parts.push(`${minutes}m`);
  if (seconds > 0 && hours === 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}
