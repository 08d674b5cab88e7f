// Checks of what the host sends the inspector. The host is trusted, but a malformed message must
// not take the view down or leave it half-updated: each parser checks the shape the store and the
// components rely on, and answers null otherwise (the host connection logs and drops it).
import {
  isMemberOf,
  parseByType,
  type ArchivedSegment,
  type AutoCompactView,
  type FrontierPointView,
  type CacheBoundaryView,
  type CompactionView,
  type HostToInspector,
  type InspectorSession,
  type LedgerView,
  type LossView,
  type MessageDetail,
  type MessageRow,
  type MicroDecisionView,
  type PlanCostView,
  type PlanView,
  type ProbeScoreView,
  type ProbeView,
  type RawMessage,
  type RecordedCallView,
  type RecordedCompactionView,
  type ReplayConfigView,
  type ReplayPointView,
  type ReplayView,
  type RowKind,
  type ServerContextView,
  type StrategyParamView,
  type StrategyView,
  type TimeTravelPoint,
  type UsageBreakdown,
  type ValidatorsByType,
  type YourSettingsView,
} from '../../src/protocol';

type Rec = RawMessage;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isStrOrNull = (v: unknown): v is string | null => v === null || isStr(v);
const isOpt = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
const allNum = (r: Rec, keys: readonly string[]): boolean => keys.every((k) => isNum(r[k]));
const arrayOf = <T>(v: unknown, check: (v: unknown) => v is T): v is T[] => Array.isArray(v) && v.every(check);
const isStrArray = (v: unknown): v is string[] => arrayOf(v, isStr);

const isRole = isMemberOf<MessageRow['role']>({ user: true, assistant: true });
const isPriceSource = isMemberOf<NonNullable<RecordedCallView['priceSource']>>({ table: true, 'family-fallback': true, user: true });
const isServerStrategy = isMemberOf<ServerContextView['strategy']>({ 'server-clear-tool-uses': true, 'server-compact': true });
const isServerCompaction = isMemberOf<NonNullable<ServerContextView['compaction']>>({ applied: true, failed: true });
const isBoundarySource = isMemberOf<CacheBoundaryView['source']>({ breakpoint: true, estimate: true });
const isOverheadSource = isMemberOf<NonNullable<UsageBreakdown['overheadSource']>>({ agent: true, fitted: true, unknown: true });
const isWindowSource = isMemberOf<NonNullable<UsageBreakdown['windowSource']>>({
  settings: true,
  recording: true,
  'inferred-from-usage': true,
  model: true,
});
const isNoticeLevel = isMemberOf<Extract<HostToInspector, { type: 'notice' }>['level']>({ info: true, error: true });
const isRowKind = isMemberOf<RowKind>({
  'user-prompt': true,
  'tool-result': true,
  'assistant-text': true,
  'tool-call': true,
  thinking: true,
  summary: true,
  placeholder: true,
  artefact: true,
  instructions: true,
});

/**
 * A timeline row. Sessions carry thousands of them and a followed session is sent again on every
 * model call, so this check is written out (no per-field closures): the same checks as the helpers
 * above, several times faster.
 */
function isRow(v: unknown): v is MessageRow {
  if (!isRec(v)) return false;
  const { tools, truncated: t, usage, pinned, server } = v;
  return (
    typeof v.id === 'string' &&
    isNum(v.index) &&
    isNum(v.tokens) &&
    isNum(v.turn) &&
    isRole(v.role) &&
    isRowKind(v.kind) &&
    typeof v.preview === 'string' &&
    (tools === undefined || isStrArray(tools)) &&
    (t === undefined ||
      (isRec(t) &&
        isNum(t.originalTokens) &&
        isNum(t.tokens) &&
        isNum(t.originalChars) &&
        (t.superseded === undefined || isStrArray(t.superseded)))) &&
    (usage === undefined || isCall(usage)) &&
    (pinned === undefined || typeof pinned === 'boolean') &&
    (server === undefined || isServerView(server))
  );
}

/** Every element passes `check` (a loop: the sessions' row arrays are long). */
function everyOf<T>(v: unknown, check: (v: unknown) => v is T): v is T[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!check(v[i])) return false;
  return true;
}

function isServerView(v: unknown): v is ServerContextView {
  return (
    isRec(v) &&
    isServerStrategy(v.strategy) &&
    isOpt(v.clearedToolUses, isNum) &&
    isOpt(v.clearedInputTokens, isNum) &&
    isOpt(v.compaction, isServerCompaction)
  );
}

/** A row's recorded call (many rows have one: written out, like isRow). */
function isCall(v: unknown): v is RecordedCallView {
  if (!isRec(v)) return false;
  const { cacheCreationTokens, cacheWrite1hTokens: w1h, model, costUSD, priceSource } = v;
  return (
    isNum(v.input) &&
    isNum(v.inputTokens) &&
    isNum(v.cacheReadTokens) &&
    isNum(cacheCreationTokens) &&
    isNum(v.outputTokens) &&
    (model === undefined || typeof model === 'string') &&
    (w1h === undefined || (isNum(w1h) && w1h >= 0 && w1h <= cacheCreationTokens)) &&
    (costUSD === undefined || isNum(costUSD)) &&
    (priceSource === undefined || isPriceSource(priceSource))
  );
}

function isCacheBoundary(v: unknown): boolean {
  return (
    isRec(v) && (v.afterId === null || isStr(v.afterId)) && isNum(v.readTokens) && isStr(v.callMessageId) && isBoundarySource(v.source)
  );
}

const isOutside = (v: unknown): boolean => isRec(v) && allNum(v, ['system', 'tools', 'instructions', 'todo', 'pinned', 'total']);
const isStanding = (v: unknown): boolean =>
  isRec(v) &&
  isNum(v.instructionTokens) &&
  arrayOf(v.instructions, (s): s is unknown => isRec(s) && isStr(s.name) && isNum(s.tokens) && isBool(s.sent) && isBool(s.truncated)) &&
  isRec(v.todo) &&
  allNum(v.todo, ['tokens', 'items', 'done']);

const numOrNull = (v: unknown): boolean => v === null || isNum(v);
const isPolicy = isMemberOf<AutoCompactView['policy']>({ threshold: true, pays: true });
const isTtlView = isMemberOf<AutoCompactView['ttl']>({ '5m': true, '1h': true, off: true });

/** The auto-compaction decision (issue 25): its sentences are text of bounded length. */
function isAutoCompact(v: unknown): v is AutoCompactView {
  return (
    isRec(v) &&
    isPolicy(v.policy) &&
    [v.fired, v.forced, v.held].every((b) => typeof b === 'boolean') &&
    isStr(v.reason) &&
    v.reason.length <= 300 &&
    [v.costUSD, v.paybackCalls, v.horizonCalls, v.callsSinceCompaction].every(numOrNull) &&
    allNum(v, ['calls', 'minCallsBetween']) &&
    isTtlView(v.ttl) &&
    (v.ttlReason === null || (isStr(v.ttlReason) && v.ttlReason.length <= 300))
  );
}

function isUsage(v: unknown): v is UsageBreakdown {
  return (
    isRec(v) &&
    allNum(v, ['window', 'system', 'tools', 'messages', 'toolResults', 'summaries', 'free']) &&
    (v.threshold === null || isNum(v.threshold)) &&
    isOpt(v.overheadSource, isOverheadSource) &&
    isOpt(v.windowSource, isWindowSource) &&
    isOpt(v.windowNote, isStr) &&
    isOpt(v.recorded, (r) => isRec(r) && isCall(r.call) && isStr(r.messageId)) &&
    isOpt(v.cacheBoundary, isCacheBoundary) &&
    isOpt(v.standing, isStanding) &&
    isOpt(v.outside, isOutside) &&
    isOpt(v.autoCompact, isAutoCompact)
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
    isStr(v.summaryPreview) &&
    isOpt(v.probes, isProbeScore)
  );
}

const isProbeKind = isMemberOf<ProbeView['kind']>({ artifact: true, recall: true, decision: true, continuation: true });
const PROBE_KINDS = ['artifact', 'recall', 'decision', 'continuation'] as const;
/** Most probes a score may carry (the engine makes about 20–40). */
const MAX_PROBES = 200;

const isProbe = (v: unknown): v is ProbeView =>
  isRec(v) &&
  isStr(v.id) &&
  isProbeKind(v.kind) &&
  isStr(v.question) &&
  isStrArray(v.expected) &&
  isBool(v.exact) &&
  isStrArray(v.sources) &&
  isBool(v.referencedLater) &&
  isBool(v.answerable);

/** A probe score: counts that agree with its probes, rates from 0 to 1, every kind's rate. */
export function isProbeScore(v: unknown): v is ProbeScoreView {
  if (!isRec(v) || !arrayOf(v.probes, isProbe) || v.probes.length > MAX_PROBES) return false;
  const byKind = v.recallByKind;
  return (
    v.total === v.probes.length &&
    v.answerable === v.probes.filter((p) => p.answerable).length &&
    (v.recall === null ? v.total === 0 : isFraction(v.recall)) &&
    isRec(byKind) &&
    PROBE_KINDS.every((k) => byKind[k] === null || isFraction(byKind[k])) &&
    isBool(v.summaryCounted)
  );
}

const isSegment = (v: unknown): v is ArchivedSegment => isRec(v) && isRecordedCompaction(v.compaction) && everyOf(v.rows, isRow);
const isPoint = (v: unknown): v is TimeTravelPoint =>
  isRec(v) && allNum(v, ['at', 'messages']) && isStr(v.label) && isOpt(v.probes, isProbeScore);

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
    everyOf(v.rows, isRow) &&
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
    isOpt(v.probes, isProbeScore) &&
    isOpt(v.microCompaction, isMicroDecision) &&
    isOpt(v.outside, isOutside) &&
    isOpt(v.overLimit, (o) => isRec(o) && allNum(o, ['limit', 'tokensAfter']) && isBool(o.becauseOfOutside))
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

const isMicroAction = isMemberOf<MicroDecisionView['action']>({ cleared: true, held: true, none: true });
const isMicroCache = (v: unknown): boolean =>
  isRec(v) && allNum(v, ['cachedPrefixTokens', 'invalidatedCachedTokens', 'costNowUSD', 'savingPerTurnUSD']) && isTurns(v.paybackTurns);

/** Micro-compaction's batch decision. */
export function isMicroDecision(v: unknown): v is MicroDecisionView {
  return (
    isRec(v) &&
    isMicroAction(v.action) &&
    isStr(v.reason) &&
    allNum(v, ['candidates', 'clearableTokens', 'savedTokens', 'triggerTokens', 'clearAtLeast', 'horizonTurns']) &&
    isBool(v.cacheAware) &&
    (v.cache === null || isMicroCache(v.cache))
  );
}

const isLastAction = isMemberOf<LedgerView['files'][number]['lastAction']>({ read: true, edited: true, created: true });
const isLedgerFile = (v: unknown): v is LedgerView['files'][number] =>
  isRec(v) && isStr(v.path) && allNum(v, ['read', 'edited', 'created']) && isLastAction(v.lastAction);
const isLedgerCommand = (v: unknown): v is LedgerView['commands'][number] =>
  isRec(v) && isStr(v.command) && (v.exitCode === null || isNum(v.exitCode)) && isOpt(v.runs, isNum);
const isLedgerError = (v: unknown): v is LedgerView['errors'][number] => isRec(v) && isStr(v.text) && isBool(v.resolved);

/** An artifact ledger (files, commands, errors, instructions, and what the budget folded). */
export function isLedger(v: unknown): v is LedgerView {
  return (
    isRec(v) &&
    arrayOf(v.files, isLedgerFile) &&
    arrayOf(v.commands, isLedgerCommand) &&
    arrayOf(v.errors, isLedgerError) &&
    isStrArray(v.instructions) &&
    isOpt(v.facts, isStrArray) &&
    isOpt(v.names, isStrArray) &&
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

const isNumOrNull = (v: unknown): v is number | null => v === null || isNum(v);
/** A recall: a fraction from 0 to 1. */
const isFraction = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;

const isReplayConfig = (v: unknown): v is ReplayConfigView =>
  isRec(v) &&
  isStr(v.name) &&
  allNum(v, ['calls', 'compactions', 'peakContextTokens', 'costUSD']) &&
  isFraction(v.pathRecall) &&
  isFraction(v.promptRecall) &&
  (v.ledgerRecall === null || isFraction(v.ledgerRecall)) &&
  isNumOrNull(v.costErrorVsRecorded) &&
  isNumOrNull(v.stoppedAt) &&
  (v.probeRecall === null || isFraction(v.probeRecall)) &&
  arrayOf(v.points, isReplayPoint);

const isFrontierMark = isMemberOf<FrontierPointView['marks'][number]>({ default: true, yours: true });

const isFrontierPoint = (v: unknown): v is FrontierPointView =>
  isRec(v) &&
  isStr(v.name) &&
  isNum(v.costUSD) &&
  (v.probeRecall === null || isFraction(v.probeRecall)) &&
  isBool(v.onFrontier) &&
  arrayOf(v.marks, isFrontierMark) &&
  v.marks.length <= 2;

const isYourSettingsState = isMemberOf<YourSettingsView['state']>({ default: true, replayed: true, invalid: true, unknown: true });

const isYourSettings = (v: unknown): v is YourSettingsView =>
  isRec(v) && isYourSettingsState(v.state) && isStrArray(v.changed) && v.changed.length <= 200 && isOpt(v.error, isStr);

const isReplayWindowSource = isMemberOf<ReplayView['windowSource']>({
  recorded: true,
  'inferred-from-usage': true,
  'model-table': true,
  user: true,
});
const isCacheTtl = isMemberOf<ReplayView['recordedTtl']>({ '5m': true, '1h': true });

/** A replay of the inspected file: every configuration's points, within the caps the chart draws. */
export function isReplayView(v: unknown): v is ReplayView {
  return (
    isRec(v) &&
    isStr(v.source) &&
    allNum(v, ['window', 'recordedCalls']) &&
    isReplayWindowSource(v.windowSource) &&
    isNumOrNull(v.recordedCostUSD) &&
    isCacheTtl(v.recordedTtl) &&
    isNumOrNull(v.recordedCacheWriteTokens) &&
    arrayOf(v.configs, isReplayConfig) &&
    v.configs.length <= 16 &&
    v.configs.every((c) => c.points.length <= 5_000) &&
    arrayOf(v.frontier, isFrontierPoint) &&
    v.frontier.length <= 16 &&
    isYourSettings(v.yourSettings) &&
    isStrArray(v.warnings) &&
    isStrArray(v.notes)
  );
}

/** The member of HostToInspector of type K: the host message as sent, once the check of its fields passed. */
const sent = <K extends HostToInspector['type']>(m: Rec, valid: boolean): Extract<HostToInspector, { type: K }> | null =>
  valid ? (m as unknown as Extract<HostToInspector, { type: K }>) : null;

const HOST_TO_INSPECTOR: ValidatorsByType<HostToInspector> = {
  session: (m) => sent<'session'>(m, isInspectorSession(m.session)),
  plan: (m) => sent<'plan'>(m, isPlanView(m.plan)),
  planError: (m) => sent<'planError'>(m, Number.isSafeInteger(m.requestId) && isStr(m.message)),
  detail: (m) => sent<'detail'>(m, isDetail(m.detail)),
  busy: (m) => sent<'busy'>(m, isBool(m.busy) && isOpt(m.label, isStr)),
  replay: (m) => sent<'replay'>(m, isReplayView(m.replay)),
  notice: (m) => sent<'notice'>(m, isNoticeLevel(m.level) && isStr(m.message)),
};

/** A host message for the inspector, or null if it is not one of the protocol's shapes (one check per type, or it does not compile). */
export const parseHostToInspector: (v: unknown) => HostToInspector | null = parseByType(HOST_TO_INSPECTOR);
