// The context window a recorded session ran with, from the evidence, and where it came from. Codex
// records its window (`model_context_window`); Claude Code records none, but its model id may carry
// the 1M marker (`claude-opus-4-6[1m]`), and a recorded request larger than the model's standard
// window proves the larger tier (a 303,594-token request did not run in 200,000). The table's window
// is the last resort; the user's --window wins over everything, with a note when the recording
// contradicts it.
import { recordedInputTokens, type Message } from '../conversation/conversation';
import { contextWindowFor, largeWindowFor } from '../cost/cost';
import { recordedCalls } from '../counting/recordedCalls';
import type { ImportResult } from './types';

export type WindowSource = 'recorded' | 'inferred-from-usage' | 'model-table' | 'user';

export interface SessionWindow {
  window: number;
  source: WindowSource;
  /** Set when the recording contradicts a window one would assume (the table's, or the user's). */
  note?: string;
  /** The model whose window it is (the last recorded call's, else the import's), when known. */
  model?: string;
}

/** Claude's standard window, when the table does not know the model either. */
export const DEFAULT_WINDOW = 200_000;
/** The larger tier a request over the standard window proves, when the table names none for the model. */
const LARGE_TIER = 1_000_000;

const n = (x: number) => x.toLocaleString('en-US');

/** The window `result` ran with (`userWindow`, from --window or a setting, wins), and its source. */
export function sessionWindow(
  result: Pick<ImportResult, 'messages' | 'compactions' | 'contextWindow' | 'model'>,
  userWindow?: number,
): SessionWindow {
  const contexts: Message[][] = [...result.compactions.map((c) => c.before), result.messages];
  const calls = recordedCalls(contexts);
  const model = result.model ?? calls.at(-1)?.usage.model;
  const found = (w: SessionWindow): SessionWindow => (model === undefined ? w : { ...w, model });
  const largest = calls.reduce((max, c) => Math.max(max, recordedInputTokens(c.usage)), 0);
  const recorded = recordedWindowOf(result);
  if (userWindow !== undefined) {
    const note =
      largest > userWindow
        ? `the recording read ${n(largest)} tokens in one call, more than the ${n(userWindow)} window given`
        : recorded !== undefined && recorded !== userWindow
          ? `the recording says its window was ${n(recorded)}; ${n(userWindow)} given`
          : undefined;
    return found({ window: userWindow, source: 'user', ...(note ? { note } : {}) });
  }
  if (recorded !== undefined) return found({ window: recorded, source: 'recorded' });
  if (model !== undefined && /\[1m\]$/i.test(model)) return found({ window: LARGE_TIER, source: 'recorded' });
  const table = contextWindowFor(model) ?? DEFAULT_WINDOW;
  if (largest > table) {
    const tier = Math.max(largeWindowFor(model) ?? LARGE_TIER, largest);
    const note =
      `a recorded call read ${n(largest)} tokens, more than the ${n(table)} window the table gives ` +
      `${model ?? 'an unknown model'}: the session ran with the ${n(tier)} window`;
    return found({ window: tier, source: 'inferred-from-usage', note });
  }
  return found({ window: table, source: 'model-table' });
}

/** The window the recording names (the import's, else the last recorded call's), if any. */
function recordedWindowOf(result: Pick<ImportResult, 'messages' | 'contextWindow'>): number | undefined {
  if (result.contextWindow !== undefined && result.contextWindow > 0) return result.contextWindow;
  for (let i = result.messages.length - 1; i >= 0; i--) {
    const w = result.messages[i].usage?.contextWindow;
    if (w !== undefined && w > 0) return w;
  }
  return undefined;
}
