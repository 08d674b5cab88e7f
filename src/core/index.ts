// The engine's public surface: the ONLY module that code outside src/core imports (the agent, the
// extension, the CLI, the inspector model, the protocol, the settings). It exports exactly the names
// that code uses: test/core/surface.test.ts fails on a name no file under src/ outside core imports.
// The layer rule is enforced on the real module graph by test/core/moduleGraph.test.ts and, per
// line, by ESLint's import rules (layers.json).
//
// Public: the message model; token counting (the counter interface, the memo, the tokenizers, the
// calibration); the strategies (registry, parameter resolution, planning) and the plan they produce;
// the pipeline with its outcomes and the settings it runs under; the session log, transcripts and the
// reading of its compaction records; the summarizer over an LLM client interface; triggers; session
// importers; the request view (what the model sees after micro-compaction); replay; the root error class.
// Everything else under src/core (strategy internals, the ledger's extraction and merging, the
// prompt-cache model, snapping, invariants, incremental micro-compaction, the importers' limits and
// Splitpoint serialisation, …) is internal and may change without notice. Tests (test/) and the
// benchmarks and scripts (bench/, scripts/) import internals by their module path to measure them;
// production code may not.

// The artifact ledger and the loss report
export type { ArtifactLedger, LossReport } from './ledger/ledger';

// Cost: prices, context windows, the prompt cache's limits and what a plan costs
export {
  CACHE_TTL_MS,
  callCostUSD,
  contextWindowFor,
  LOOKBACK_SEGMENTS,
  MAX_CACHE_BREAKPOINTS,
  priceFor,
  type CacheTtl,
  type ModelPrice,
  type PriceOverrides,
} from './cost/cost';
export { costNote, planCostOnView, type CacheState, type PlanCost } from './cost/cacheCost';
export { fallbackPriceWarning, priceLookup } from './cost/prices';
export { recordedCallCostUSD } from './cost/recordedCost';
export {
  calibratedPlan,
  calibratedPlanCost,
  recordedCacheState,
  recordingCalibration,
  type RecordingCalibration,
} from './cost/recordingPreview';
export type { MicroCompactDecision, MicroCompactSettings } from './pipeline/microBatch';

// Pins (compaction-resistant messages)
export { pinnedIn, resolvePins, UnknownPinError } from './ledger/pins';

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
  type RecordedUsage,
  type ContentBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from './conversation/conversation';

// MCP tool names (mcp__server__tool)
export { MCP_TOOL_PREFIX, parseMcpToolName } from './conversation/mcpToolName';

// Events
export { Emitter, type Disposable, type Event } from './base/events';

// Token counting
export { base64ImageInfo, imageSizeProblem, imageTokensFor, MAX_IMAGE_BYTES, MAX_IMAGE_TOKENS } from './conversation/images';
export { CharEstimateTokenizer, MemoizedMessageCounter, type MessageTokenCounter, type TextTokenizer } from './counting/tokens';
export { createTokenizer, DEFAULT_TOKENIZER, isTokenizerName, TOKENIZER_NAMES } from './counting/tokenizers';
export { CachingTextTokenizer } from './counting/textCountCache';
export { countMessagesInWorker, WorkerTokenizer, type AsyncTextCounter } from './counting/workerTokenizer';
export { CalibratedCounter, CalibrationSnapshotError, totalInputTokens } from './counting/calibration';
export { estimateCalls, recordedCalls } from './counting/recordedCalls';

// Plans and strategies
export { DEFAULT_PLAN_CONTEXT, type CompactionPlan, type PlanContext, type SummarizerInput } from './pipeline/plan';
export { planRequest } from './pipeline/planRequest';
export { summaryTokenBound } from './pipeline/summaryBudget';
export { ReplacementCache } from './pipeline/replacementCache';
export { withPlanPrepSteps } from './pipeline/planPrep';
export { runSteps, runStepsSliced, type Steps } from './base/slicedWork';
export {
  getStrategy,
  planWith,
  preparePlanInput,
  resolveParams,
  resolveStrategy,
  StrategyParamError,
  STRATEGIES,
  STRATEGY_NAMES,
  UnknownSplitTargetError,
  UnknownStrategyError,
  type StrategyDefinition,
  type StrategyName,
} from './strategies';
export { microCompactedView, planTokensOnView } from './pipeline/requestView';
export {
  SERVER_STRATEGIES,
  serverContextReport,
  serverContextRequest,
  withoutFailedCompactions,
  type ServerContextReport,
  type ServerContextRequest,
} from './pipeline/serverContext';

// Pipeline, triggers, sessions, transcripts
export {
  CompactionPipeline,
  type AutoCompactSettings,
  type CompactionFailure,
  type CompactionOutcome,
  type CompactionTriggerSource,
  type PipelineSettings,
  type UndoOutcome,
} from './pipeline/pipeline';
export type { Summarizer } from './pipeline/pipelineTypes';
export { autoCompactThreshold, budgetTrigger, formatTokens } from './pipeline/triggers';
export { AUTO_COMPACT_POLICIES, type AutoCompactPolicy } from './pipeline/paysTrigger';
export type { AutoCompactDecision } from './pipeline/autoCompactDecision';
export type { PromptCachingSetting } from './pipeline/callStats';
export type { SummaryDecision, SummaryDraft, SummaryReviewer } from './pipeline/summaryDraft';
export { SessionFileStore, SessionLog, type CompactionRecord, type SessionMeta } from './session/session';
export { SessionLockedError, type SessionLock } from './session/sessionLock';
export { parseTodoItems, renderTodoLines, sessionTodo, setSessionTodo, TODO_STATUSES } from './session/sessionTodo';
export type { StandingContext, TodoItem, TodoStatus } from './standing/types';
export {
  capInstructions,
  DEFAULT_INSTRUCTION_CAPS,
  renderInstructions,
  renderStanding,
  renderTodo,
  systemWithStanding,
  todoTrailer,
  type InstructionCaps,
  type UncappedSource,
} from './standing/render';
export {
  keepInstruction,
  keptInstructionSources,
  ledgerPromptId,
  removeKeptInstruction,
  sessionKeptInstructions,
  type KeptInstruction,
} from './standing/keptInstructions';
export { canUndo, compactionInEffect } from './pipeline/compactionHistory';
export { restoreTranscript, TranscriptStore } from './transcripts/transcripts';
export { writeFileAtomic } from './base/fsAtomic';

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
export { type ConversationRequest, type SystemTextBlock } from './pipeline/summaryRequest';

// Importers
export {
  genuinePromptCount,
  importSession,
  importSessionFile,
  ImportError,
  readSessionFile,
  serializeImportResult,
  type ImportResult,
  type RecordedCompaction,
  type SessionFormat,
} from './importers';
export { sessionWindow, type SessionWindow, type WindowSource } from './importers/window';
export { SessionFollower, type FollowUpdate } from './importers/follow';

// Replay: the cost of a configuration on a recorded session
export {
  fittedOverhead,
  prepareReplay,
  replayPrepared,
  replaySession,
  type PreparedReplay,
  type PromptCaching,
  type ReplayConfig,
  type ReplayReport,
} from './replay';
export { onFrontier } from './replay/frontier';

// Probes: what a compaction lost, asked as questions (generation, the offline score, the online check)
export {
  generateProbes,
  parseProbeAnswers,
  PROBE_KINDS,
  probeQuestionsPrompt,
  recordedCompactionProbes,
  recordedCompactionProbesSteps,
  scorePlan,
  scorePlanSteps,
  scoreProbes,
  type Probe,
  type ProbeAnswer,
  type ProbeKind,
  type ProbeScore,
  type ScoredProbe,
} from './probes';

// Live sessions: the Claude Code, Codex and Splitpoint sessions of a workspace, and a followed session's status
export {
  agentOf,
  claudeProjectFolderNames,
  discoverSessions,
  liveCalls,
  liveStatus,
  type AgentKind,
  type DiscoveredSession,
  type DiscoverOptions,
  type LiveCall,
  type LiveStatus,
} from './live';
