// The inspector's glance strip for a session of another agent (issue 24 item 3), as the protocol's
// LiveView: core's liveStatus of the import, whether it is followed, and that agent's next compaction
// as one of Splitpoint's strategies (the strategy and parameters of the replay configuration that
// models the agent: claude-code-like, codex-like). No `vscode` import (unit-tested in plain Node).
import { liveStatus, type ImportResult } from '../core';
import type { AgentPreviewView, LiveView } from '../protocol';
import { loadReplayConfig } from '../settings/replayConfigs';
import { agentLabel } from './sessionRows';

/** How the host holds the file: followed (each append shown), gone, and when it last read new lines. */
export interface LiveState {
  following: boolean;
  gone: boolean;
  updatedAt: number | null;
}

const previews = new Map<string, AgentPreviewView | null>();

/**
 * The built-in replay configuration `name` as a preview: its auto-compaction's strategy and parameters,
 * labelled "<agent>'s next compaction". Null when there is no such configuration (or it cannot be read).
 */
export function agentPreviewOf(name: string | null, agent: string): AgentPreviewView | null {
  if (name === null) return null;
  const key = `${name}\u0000${agent}`;
  let preview = previews.get(key);
  if (preview === undefined) {
    try {
      const config = loadReplayConfig(name, () => {
        throw new Error('not a built-in configuration');
      });
      const auto = config.pipeline.autoCompact;
      preview = { config: name, label: `${agent}'s next compaction`, strategy: auto.strategy, params: { ...auto.params } };
    } catch {
      // A name the configurations do not know: no button, never a broken strip.
      preview = null;
    }
    previews.set(key, preview);
  }
  return preview;
}

/** The strip's view of `result` (read from `file`). */
export function liveViewOf(file: string, result: ImportResult, state: LiveState): LiveView {
  const status = liveStatus(result, file);
  const foreign = status.agent === 'claude-code' || status.agent === 'codex';
  return {
    file,
    status,
    following: state.following,
    gone: state.gone,
    updatedAt: state.updatedAt,
    agentPreview: agentPreviewOf(status.agentConfig, agentLabel(status.agent)),
    canContinue: foreign,
  };
}
