// Checks of what the host sends the inspector. The host is trusted, but a malformed message must
// not take the view down or leave it half-updated: each parser checks the shape the store and the
// components rely on, and answers null otherwise (the host connection logs and drops it).
import type {
  ArchivedSegment,
  CompactionView,
  HostToInspector,
  InspectorSession,
  LedgerView,
  LossView,
  MessageDetail,
  MessageRow,
  MicroDecisionView,
  PlanCostView,
  PlanView,
  RecordedCallView,
  RecordedCompactionView,
  ServerContextView,
  ReplayConfigView,
  ReplayPointView,
  ReplayView,
  StrategyParamView,
  StrategyView,
  TimeTravelPoint,
  UsageBreakdown,
} from '../../src/protocol';

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isStrOrNull = (v: unknown): v is string | null => v === null || isStr(v);
const isOpt = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
const allNum = (r: Rec, keys: readonly string[]): boolean => keys.every((k) => isNum(r[k]));
const arrayOf = <T>(v: unknown, check: (v: unknown) => v is T): v is T[] => Array.isArray(v) && v.every(check);
const isStrArray = (v: unknown): v is string[] => arrayOf(v, isStr);

const ROW_KINDS = new Set(['user-prompt', 'tool-result', 'assistant-text', 'tool-call', 'thinking', 'summary', 'placeholder', 'artefact']);
const isRowKind = (v: unknown): boolean => isStr(v) && ROW_KINDS.has(v);

function isRow(v: unknown): v is MessageRow {
  if (!isRec(v)) return false;
  return (
    isStr(v.id) &&
    allNum(v, ['index', 'tokens', 'turn']) &&
    (v.role === 'user' || v.role === 'assistant') &&
    isRowKind(v.kind) &&
    isStr(v.preview) &&
    isOpt(v.tools, isStrArray) &&
    isOpt(v.truncated, (t) => isRec(t) && allNum(t, ['originalTokens', 'tokens', 'originalChars'])) &&
    isOpt(v.usage, isCall) &&
    isOpt(v.pinned, isBool) &&
    isOpt(v.server, isServerView)
  );
}

function isServerView(v: unknown): v is ServerContextView {
  return (
    isRec(v) &&
    (v.strategy === 'server-clear-tool-uses' || v.strategy === 'server-compact') &&
    isOpt(v.clearedToolUses, isNum) &&
    isOpt(v.clearedInputTokens, isNum) &&
    isOpt(v.compaction, (c) => c === 'applied' || c === 'failed')
  );
}

function isCall(v: unknown): v is RecordedCallView {
  return (
    isRec(v) &&
    allNum(v, ['input', 'inputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'outputTokens']) &&
    isOpt(v.model, isStr) &&
    isOpt(v.costUSD, isNum)
  );
}

function isCacheBoundary(v: unknown): boolean {
  return (
    isRec(v) &&
    (v.afterId === null || isStr(v.afterId)) &&
    isNum(v.readTokens) &&
    isStr(v.callMessageId) &&
    (v.source === 'breakpoint' || v.source === 'estimate')
  );
}

const isOneOf =
  (...values: string[]) =>
  (v: unknown): boolean =>
    isStr(v) && values.includes(v);

function isUsage(v: unknown): v is UsageBreakdown {
  return (
    isRec(v) &&
    allNum(v, ['window', 'system', 'tools', 'messages', 'toolResults', 'summaries', 'free']) &&
    (v.threshold === null || isNum(v.threshold)) &&
    isOpt(v.overheadSource, isOneOf('agent', 'fitted', 'unknown')) &&
    isOpt(v.windowSource, isOneOf('settings', 'recording', 'model')) &&
    isOpt(v.recorded, (r) => isRec(r) && isCall(r.call) && isStr(r.messageId)) &&
    isOpt(v.cacheBoundary, isCacheBoundary)
  );
}

function isRecordedCompaction(v: unknown): v is RecordedCompactionView {
  return (
    isRec(v) &&
    allNum(v, ['index', 'line', 'archivedCount', 'archivedTokens', 'summaryCount', 'summaryTokens']) &&
    isStr(v.agent) &&
    isStr(v.trigger) &&
    (v.preTokens === null || isNum(v.preTokens)) &&
    isOpt(v.at, isNum) &&
    isStr(v.summaryPreview)
  );
}

const isSegment = (v: unknown): v is ArchivedSegment => isRec(v) && isRecordedCompaction(v.compaction) && arrayOf(v.rows, isRow);
const isPoint = (v: unknown): v is TimeTravelPoint => isRec(v) && allNum(v, ['at', 'messages']) && isStr(v.label);

function isTimeTravel(v: unknown): boolean {
  return isRec(v) && (v.at === null || isNum(v.at)) && arrayOf(v.points, isPoint);
}

function isCompaction(v: unknown): v is CompactionView {
  if (!isRec(v)) return false;
  return (
    isStr(v.id) &&
    isStr(v.strategy) &&
    isStr(v.trigger) &&
    isStr(v.transcriptPath) &&
    allNum(v, ['at', 'tokensBefore', 'tokensAfter', 'archivedCount']) &&
    isOpt(v.focus, isStr) &&
    isOpt(v.draft, isStr) &&
    isOpt(v.finalText, isStr) &&
    isOpt(v.syntheticId, isStr) &&
    isOpt(v.ledger, isLedger)
  );
}

function isParam(v: unknown): v is StrategyParamView {
  return isRec(v) && isStr(v.name) && isStr(v.description) && allNum(v, ['value', 'min', 'max']) && isBool(v.integer);
}

function isStrategy(v: unknown): v is StrategyView {
  return isRec(v) && isStr(v.name) && isStr(v.title) && isStr(v.description) && isBool(v.usesSummarizer) && arrayOf(v.params, isParam);
}

export function isInspectorSession(v: unknown): v is InspectorSession {
  if (!isRec(v)) return false;
  return (
    isStr(v.source) &&
    isBool(v.readOnly) &&
    isStr(v.sessionId) &&
    isStr(v.title) &&
    arrayOf(v.rows, isRow) &&
    isUsage(v.usage) &&
    isStrOrNull(v.tailStartId) &&
    arrayOf(v.compactions, isCompaction) &&
    arrayOf(v.strategies, isStrategy) &&
    isBool(v.canUndo) &&
    isOpt(v.archived, (a) => arrayOf(a, isSegment)) &&
    isOpt(v.timeTravel, isTimeTravel)
  );
}

const isTruncation = (v: unknown): v is PlanView['truncated'][number] => isRec(v) && isStr(v.id) && allNum(v, ['tokens', 'originalTokens']);

export function isPlanView(v: unknown): v is PlanView {
  if (!isRec(v)) return false;
  return (
    Number.isSafeInteger(v.requestId) &&
    isStr(v.strategy) &&
    isRec(v.params) &&
    Object.values(v.params).every(isNum) &&
    isBool(v.noop) &&
    isStrArray(v.notes) &&
    isStrOrNull(v.tailStartId) &&
    isStrArray(v.archivedIds) &&
    isStrArray(v.keptIds) &&
    arrayOf(v.truncated, isTruncation) &&
    allNum(v, ['splitIndex', 'tokensBefore', 'tokensAfter', 'summarizerInputTokens', 'summarizerInputMessages', 'computeMs']) &&
    isBool(v.needsSummary) &&
    isOpt(v.pinned, isStrArray) &&
    isOpt(v.pinnedTokens, isNum) &&
    isOpt(v.ledger, (l) => l === null || isLedger(l)) &&
    isOpt(v.lost, (l) => l === null || isLoss(l)) &&
    isOpt(v.cost, isPlanCost) &&
    isOpt(v.microCompaction, isMicroDecision)
  );
}

const isTurns = (v: unknown): v is number | null => v === null || (Number.isSafeInteger(v) && (v as number) >= 0);

/** A preview's cost with the prompt cache. */
export function isPlanCost(v: unknown): v is PlanCostView {
  return (
    isRec(v) &&
    allNum(v, ['invalidatedCachedTokens', 'cachedPrefixTokens']) &&
    isRec(v.nextRequestUSD) &&
    allNum(v.nextRequestUSD, ['before', 'after']) &&
    isTurns(v.paybackTurns) &&
    isBool(v.cacheAssumed) &&
    isStrOrNull(v.model)
  );
}

const MICRO_ACTIONS = isOneOf('cleared', 'held', 'none');
const isMicroCache = (v: unknown): boolean =>
  isRec(v) && allNum(v, ['cachedPrefixTokens', 'invalidatedCachedTokens', 'costNowUSD', 'savingPerTurnUSD']) && isTurns(v.paybackTurns);

/** Micro-compaction's batch decision. */
export function isMicroDecision(v: unknown): v is MicroDecisionView {
  return (
    isRec(v) &&
    MICRO_ACTIONS(v.action) &&
    isStr(v.reason) &&
    allNum(v, ['candidates', 'clearableTokens', 'savedTokens', 'triggerTokens', 'clearAtLeast', 'horizonTurns']) &&
    isBool(v.cacheAware) &&
    (v.cache === null || isMicroCache(v.cache))
  );
}

const LAST_ACTIONS = isOneOf('read', 'edited', 'created');
const isLedgerFile = (v: unknown): v is LedgerView['files'][number] =>
  isRec(v) && isStr(v.path) && allNum(v, ['read', 'edited', 'created']) && LAST_ACTIONS(v.lastAction);
const isLedgerCommand = (v: unknown): v is LedgerView['commands'][number] =>
  isRec(v) && isStr(v.command) && (v.exitCode === null || isNum(v.exitCode));
const isLedgerError = (v: unknown): v is LedgerView['errors'][number] => isRec(v) && isStr(v.text) && isBool(v.resolved);

/** An artifact ledger (files, commands, errors, instructions, and what the budget folded). */
export function isLedger(v: unknown): v is LedgerView {
  return (
    isRec(v) &&
    arrayOf(v.files, isLedgerFile) &&
    arrayOf(v.commands, isLedgerCommand) &&
    arrayOf(v.errors, isLedgerError) &&
    isStrArray(v.instructions) &&
    isOpt(v.folded, (f) => isRec(f) && allNum(f, ['files', 'commands', 'errors', 'instructions']))
  );
}

/** A loss report: a ledger of what leaves, plus images and thinking blocks. */
export function isLoss(v: unknown): v is LossView {
  return isLedger(v) && allNum(v as unknown as Rec, ['images', 'thinkingBlocks']);
}

function isDetail(v: unknown): v is MessageDetail {
  return isRec(v) && isStr(v.id) && isRowKind(v.kind) && isNum(v.tokens) && isStr(v.text) && isOpt(v.effectiveText, isStr);
}

const isReplayPoint = (v: unknown): v is ReplayPointView =>
  isRec(v) && allNum(v, ['call', 'contextTokens', 'cumulativeCostUSD']) && isBool(v.compaction);

const isReplayConfig = (v: unknown): v is ReplayConfigView =>
  isRec(v) &&
  isStr(v.name) &&
  allNum(v, ['calls', 'compactions', 'peakContextTokens', 'costUSD', 'ledgerRecall']) &&
  (v.stoppedAt === null || isNum(v.stoppedAt)) &&
  arrayOf(v.points, isReplayPoint);

/** A replay of the inspected file: every configuration's points, within the caps the chart draws. */
export function isReplayView(v: unknown): v is ReplayView {
  return (
    isRec(v) &&
    isStr(v.source) &&
    allNum(v, ['window', 'recordedCalls']) &&
    (v.recordedCostUSD === null || isNum(v.recordedCostUSD)) &&
    arrayOf(v.configs, isReplayConfig) &&
    v.configs.length <= 16 &&
    v.configs.every((c) => c.points.length <= 5_000) &&
    isStrArray(v.notes)
  );
}

/** A host message for the inspector, or null if it is not one of the protocol's shapes. */
export function parseHostToInspector(v: unknown): HostToInspector | null {
  if (!isRec(v)) return null;
  const ok = (valid: boolean) => (valid ? (v as unknown as HostToInspector) : null);
  switch (v.type) {
    case 'session':
      return ok(isInspectorSession(v.session));
    case 'plan':
      return ok(isPlanView(v.plan));
    case 'planError':
      return ok(Number.isSafeInteger(v.requestId) && isStr(v.message));
    case 'detail':
      return ok(isDetail(v.detail));
    case 'busy':
      return ok(isBool(v.busy) && isOpt(v.label, isStr));
    case 'replay':
      return ok(isReplayView(v.replay));
    case 'notice':
      return ok((v.level === 'info' || v.level === 'error') && isStr(v.message));
    default:
      return null;
  }
}
