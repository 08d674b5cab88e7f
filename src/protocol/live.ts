// Live sessions (issue 24): the inspector's glance strip for a session of another agent (followed as it
// is written, or imported once) and the intents the strip sends back. The strip has its own messages,
// beside the inspector's: the host posts `live` after every session it shows (null: nothing to show),
// the strip posts `liveReady` when it mounts (the host answers with the current one) and
// `continueInSplitpoint`. Both sides check what they receive with the validators below (the host's
// through validation.ts's inspector table, the strip's with parseHostToLive).
// No `vscode` import and only type imports from core: bundled into the webview too.
import type { AgentKind, LiveStatus } from '../core';
import { isMemberOf, parseByType, type RawMessage, type ValidatorsByType } from './byType';

/** That agent's next compaction as one of Splitpoint's strategies (a replay configuration's strategy and parameters). */
export interface AgentPreviewView {
  /** The replay configuration it comes from ('claude-code-like', 'codex-like'). */
  config: string;
  /** The button's label, e.g. "Claude Code's next compaction". */
  label: string;
  strategy: string;
  params: Record<string, number>;
}

/** What the strip shows. */
export interface LiveView {
  /** The session file. */
  file: string;
  /** core's liveStatus of the import shown (sent as is). */
  status: LiveStatus;
  /** The host follows the file: every append is shown within a second. */
  following: boolean;
  /** The file is gone (deleted or moved): the figures are the last read. */
  gone: boolean;
  /** When the host last read new lines of it (epoch ms; null: read once). */
  updatedAt: number | null;
  /** That agent's next compaction, offered beside Splitpoint's strategies (null: no configuration models it). */
  agentPreview: AgentPreviewView | null;
  /** "Continue in Splitpoint" is offered (another agent's session: Claude Code or Codex). */
  canContinue: boolean;
}

export type HostToLive = { type: 'live'; live: LiveView | null };

export type LiveToHost =
  /** The strip mounted: the host answers with the current `live`. */
  | { type: 'liveReady' }
  /** "Continue in Splitpoint" on the session the strip shows (the host knows which file). */
  | { type: 'continueInSplitpoint' };

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

type Rec = RawMessage;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const numOrNull = (v: unknown): boolean => v === null || isNum(v);
const strOrNull = (v: unknown): boolean => v === null || isStr(v);
const onlyKeys = (v: Rec, keys: readonly string[]): boolean => Object.keys(v).every((k) => keys.includes(k));

const isAgent = isMemberOf<AgentKind | 'unknown'>({ 'claude-code': true, codex: true, splitpoint: true, unknown: true });

function isLastCompaction(v: unknown): boolean {
  return (
    v === null ||
    (isRec(v) &&
      isNum(v.index) &&
      isStr(v.trigger) &&
      numOrNull(v.preTokens) &&
      numOrNull(v.at) &&
      isNum(v.archivedMessages) &&
      numOrNull(v.archivedTokens))
  );
}

/** core's LiveStatus as the strip relies on it. */
export function isLiveStatus(v: unknown): v is LiveStatus {
  return (
    isRec(v) &&
    isAgent(v.agent) &&
    strOrNull(v.model) &&
    numOrNull(v.contextTokens) &&
    isNum(v.contextWindow) &&
    isStr(v.windowSource) &&
    numOrNull(v.compactAt) &&
    isStr(v.compactAtSource) &&
    numOrNull(v.callsToCompaction) &&
    numOrNull(v.growthPerCall) &&
    numOrNull(v.costSoFar) &&
    strOrNull(v.priceSource) &&
    isNum(v.calls) &&
    isNum(v.compactions) &&
    isLastCompaction(v.lastCompaction) &&
    strOrNull(v.agentConfig)
  );
}

function isParams(v: unknown): v is Record<string, number> {
  return isRec(v) && Object.keys(v).length <= 16 && Object.values(v).every(isNum);
}

function isAgentPreview(v: unknown): v is AgentPreviewView {
  return isRec(v) && isStr(v.config) && isStr(v.label) && isStr(v.strategy) && v.strategy.length > 0 && isParams(v.params);
}

/** A LiveView: every field the strip reads, of its type. */
export function isLiveView(v: unknown): v is LiveView {
  return (
    isRec(v) &&
    isStr(v.file) &&
    isLiveStatus(v.status) &&
    isBool(v.following) &&
    isBool(v.gone) &&
    numOrNull(v.updatedAt) &&
    (v.agentPreview === null || isAgentPreview(v.agentPreview)) &&
    isBool(v.canContinue)
  );
}

const HOST_TO_LIVE: ValidatorsByType<HostToLive> = {
  live: (m) => (m.live === null || isLiveView(m.live) ? (m as unknown as HostToLive) : null),
};

/** What the host sends the strip, or null if it is not exactly one of these shapes (the strip ignores the rest). */
export const parseHostToLive: (raw: unknown) => HostToLive | null = parseByType(HOST_TO_LIVE);

/** The strip's intents, checked on the host (wired into validation.ts's inspector table). */
export const LIVE_TO_HOST: ValidatorsByType<LiveToHost> = {
  liveReady: (m) => (onlyKeys(m, ['type']) ? { type: 'liveReady' } : null),
  continueInSplitpoint: (m) => (onlyKeys(m, ['type']) ? { type: 'continueInSplitpoint' } : null),
};

/** A strip intent from the webview, or null. */
export const parseLiveToHost: (raw: unknown) => LiveToHost | null = parseByType(LIVE_TO_HOST);
