// The registry entries of the server-side context management strategies (../serverContext.ts): their
// numeric parameters with defaults and bounds as documented; exclude_tools and instructions are not
// numbers, so they come from the settings (PlanContext.serverContext).
import { MIN_COMPACT_TRIGGER } from '../pipeline/serverContext';
import type { CompactionPlan, PlanContext } from '../pipeline/plan';
import type { Message } from '../conversation/conversation';
import type { ServerStrategyName } from '../pipeline/serverContextTypes';
import { planServerClearToolUses } from './serverClearToolUses';
import { planServerCompact } from './serverCompact';

// The registry's StrategyDefinition shape, restated here so that this module does not import the registry (no cycle).
interface StrategyParamSpec {
  name: string;
  description: string;
  default: number;
  min: number;
  max: number;
  integer: boolean;
}

interface ServerStrategyDefinition {
  name: ServerStrategyName;
  title: string;
  description: string;
  usesSummarizer: boolean;
  params: StrategyParamSpec[];
  plan: (messages: readonly Message[], params: Record<string, number>, ctx: PlanContext) => CompactionPlan;
}

const param = (name: string, description: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): StrategyParamSpec => ({
  name,
  description,
  default: def,
  min,
  max,
  integer: true,
});

export const SERVER_STRATEGY_DEFINITIONS: ServerStrategyDefinition[] = [
  {
    name: 'server-clear-tool-uses',
    title: 'Server: clear tool uses',
    description:
      'The API clears the oldest tool results itself (clear_tool_uses_20250919) once a request is over the trigger; ' +
      'the session keeps every original. The preview emulates the server.',
    usesSummarizer: false,
    params: [
      param('triggerTokens', 'trigger: clear when the request is over this many input tokens', 100_000, 1),
      param('keepToolUses', 'keep: the most recent tool uses left intact', 3, 0),
      param('clearAtLeast', 'clear_at_least: clear only if at least this many tokens go (0 = not sent)', 0, 0),
      param('clearToolInputs', 'clear_tool_inputs: 1 clears the tool calls’ inputs too, 0 only their results', 0, 0, 1),
    ],
    plan: planServerClearToolUses,
  },
  {
    name: 'server-compact',
    title: 'Server: compaction',
    description:
      'The API summarizes the conversation itself (compact_20260112) once a request is over the trigger; its compaction ' +
      'block replaces the earlier history. The preview emulates the server.',
    usesSummarizer: true,
    params: [
      param(
        'triggerTokens',
        `trigger: compact when the request is over this many input tokens (at least ${MIN_COMPACT_TRIGGER})`,
        150_000,
        MIN_COMPACT_TRIGGER,
      ),
      param('pauseAfterCompaction', 'pause_after_compaction: 1 returns the compaction block alone, then the agent continues', 0, 0, 1),
    ],
    plan: planServerCompact,
  },
];
