// The engine's public surface: the ONLY module that code outside src/core imports (the agent, the
// extension, the CLI, the inspector model). Enforced on the real module graph by
// test/core/no-vscode.test.ts and, per line, by ESLint's import rules.
//
// Public: the message model; token counting (the counter interface, the memo, the tokenizers, the
// calibration); the strategies (registry, parameter resolution, planning) and the plan they produce;
// the pipeline with its outcomes and the settings it runs under; the session log, transcripts and the
// reading of its compaction records; the summarizer over an LLM client interface; triggers; session
// importers; the request view (what the model sees after micro-compaction); the root error class.
// Everything else under src/core (strategy internals, snapping, invariants, incremental
// micro-compaction, JSON plumbing of the importers, …) is internal and may change without notice;
// tests and benchmarks may reach into it to measure it, production code may not.

// The artifact ledger and the loss report
export type { ArtifactLedger, LedgerCommand, LedgerError, LedgerFile, LossReport } from './ledger/ledger';
export { extractLedger, type ExtractLedgerOptions } from './ledger/ledgerExtract';
export { fitLedger, isEmptyLedger, LEDGER_HEADING, ledgerTokens, mergeLedgers, parseLedger, renderLedger } from './ledger/ledgerMerge';
export { lossReport } from './ledger/lossReport';
export { ledgerBudget } from './strategies/ledgerStep';

// Cost: prices, context windows, the prompt-cache model
export {
  callCostUSD,
  contextWindowFor,
  DEFAULT_PRICE,
  LOOKBACK_SEGMENTS,
  MAX_CACHE_BREAKPOINTS,
  minCacheableTokens,
  MODEL_PRICES,
  MODEL_WINDOWS,
  PrefixCache,
  prefixHashes,
  priceFor,
  type CacheOutcome,
  type CacheSegment,
  type CacheTtl,
  type CallTokens,
  type ModelPrice,
  type PriceOverrides,
} from './cost/cost';
export { costNote, planCostFor, planCostOnView, rewriteCost, type CacheState, type PlanCost } from './cost/cacheCost';
export {
  CLAUDE_CODE_MICRO_COMPACT,
  DEFAULT_HORIZON_TURNS,
  READ_SHELL_SEARCH_TOOLS,
  type MicroCompactDecision,
  type MicroCompactSettings,
} from './pipeline/microBatch';
export { IncrementalMicroCompactor } from './pipeline/microCompactor';

// Pins (compaction-resistant messages)
export { pinnedIn, resolvePins, UnknownPinError, type PinResolution } from './ledger/pins';

// Errors
export { errorMessage, SplitpointError } from './base/errors';

// Messages
export {
  blocksOf,
  isTurnStart,
  kindOf,
  newMessageId,
  textOf,
  toApiMessages,
  toolNamesById,
  toolResultText,
  recordedInputTokens,
  type ApiMessage,
  type ArtefactKind,
  type RecordedUsage,
  type ContentBlock,
  type Message,
  type MessageKind,
  type Role,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from './conversation/conversation';
export { messageProblem, MessageShapeError } from './conversation/messageShape';

// MCP tool names (mcp__server__tool)
export { MCP_TOOL_PREFIX, parseMcpToolName } from './conversation/mcpToolName';

// Events
export { Emitter, type Disposable, type Event } from './base/events';

// Token counting
export {
  base64ImageInfo,
  IMAGE_MEDIA_TYPES,
  imageBlockTokens,
  imageInfo,
  imageTokensFor,
  MAX_IMAGE_BYTES,
  MAX_IMAGE_TOKENS,
  type ImageInfo,
  type ImageMediaType,
} from './conversation/images';
export { CharEstimateTokenizer, MemoizedMessageCounter, type MessageTokenCounter, type TextTokenizer } from './counting/tokens';
export { createTokenizer, DEFAULT_TOKENIZER, isTokenizerName, TOKENIZER_NAMES, type TokenizerName } from './counting/tokenizers';
export { CachingTextTokenizer } from './counting/textCountCache';
export {
  countMessagesInWorker,
  CountWorkerError,
  defaultCountWorkerPath,
  WorkerTokenizer,
  type AsyncTextCounter,
  type WorkerCountOptions,
  type WorkerCountResult,
  type WorkerTokenizerOptions,
} from './counting/workerTokenizer';
export { CalibratedCounter, CalibrationSnapshotError, totalInputTokens, type InputUsage } from './counting/calibration';
export { InputFit, type InputFitOptions } from './counting/inputFit';
export { estimateCalls, estimateErrors, recordedCalls, type CallEstimate, type RecordedCall } from './counting/recordedCalls';

// Plans and strategies
export {
  applyPlan,
  DEFAULT_PLAN_CONTEXT,
  requestBudget,
  type CompactionPlan,
  type PlanContext,
  type PlanEntry,
  type SummarizerInput,
  type TruncatedEntry,
} from './pipeline/plan';
export { planRequest } from './pipeline/planRequest';
export { ReplacementCache } from './pipeline/replacementCache';
export {
  getStrategy,
  planWith,
  resolveParams,
  resolveStrategy,
  StrategyParamError,
  STRATEGIES,
  STRATEGY_NAMES,
  UnknownSplitTargetError,
  UnknownStrategyError,
  type ResolvedStrategy,
  type StrategyDefinition,
  type StrategyName,
  type StrategyParamSpec,
} from './strategies';
export { microCompactedView, planTokensOnView } from './pipeline/requestView';
export {
  CLEARED_TOOL_RESULT_TEXT,
  COMPACT_BETA,
  compactionSummaryOf,
  CONTEXT_MANAGEMENT_BETA,
  emulateClearToolUses,
  isServerStrategy,
  MIN_COMPACT_TRIGGER,
  SERVER_STRATEGIES,
  serverContextReport,
  serverContextRequest,
  withoutFailedCompactions,
  type ServerContextEdit,
  type ServerContextOptions,
  type ServerContextReport,
  type ServerContextRequest,
  type ServerStrategyName,
} from './pipeline/serverContext';

// Pipeline, triggers, sessions, transcripts
export {
  CompactionPipeline,
  type AutoCompactSettings,
  type CompactionFailure,
  type CompactionOutcome,
  type CompactionTriggerSource,
  type PipelineSettings,
  type PreparedRequest,
  type UndoOutcome,
} from './pipeline/pipeline';
export { autoCompactThreshold, budgetTrigger, formatTokens, type Trigger } from './pipeline/triggers';
export { finalSummaryText, MAX_SUMMARY_TEXT, type SummaryDecision, type SummaryDraft, type SummaryReviewer } from './pipeline/summaryDraft';
export {
  SessionFileStore,
  SessionLog,
  SessionWriteError,
  type CompactionRecord,
  type SessionLoadResult,
  type SessionMeta,
} from './session/session';
export { SessionLockedError, type SessionLock } from './session/sessionLock';
export { canUndo, compactionInEffect, undoTarget, type UndoTarget } from './pipeline/compactionHistory';
export { TranscriptChangedError, TranscriptStore } from './transcripts/transcripts';
export { cleanStaleTempFiles, writeFileAtomic } from './base/fsAtomic';

// Summarization
export {
  LlmError,
  parsePromptTooLong,
  summarize,
  SummarizationError,
  type LlmClient,
  type LlmErrorKind,
  type LlmRequest,
  type LlmResponse,
  type SummaryResult,
} from './pipeline/summarize';

// Importers
export {
  importSession,
  importSessionFile,
  ImportError,
  MAX_JSON_DEPTH,
  MAX_SESSION_FILE_BYTES,
  readSessionFile,
  serializeImportResult,
  serializeSplitpointJsonl,
  serializeSplitpointSession,
  SESSION_FORMATS,
  type ImportResult,
  type RecordedCompaction,
  type SessionFormat,
  type SplitpointSession,
  type StreamImportOptions,
} from './importers';

// Replay: the cost of a configuration on a recorded session
export {
  DEFAULT_SUMMARY_ESTIMATE,
  fittedOverhead,
  ledgerRecall,
  recordedTimeline,
  recordedWindow,
  recordingWindow,
  replaySession,
  requestText,
  standInText,
  type PromptCaching,
  type RecordedTimeline,
  type RecordedTotals,
  type ReplayCallPoint,
  type ReplayConfig,
  type ReplayConfigResult,
  type ReplayOptions,
  type ReplayReport,
} from './replay';
