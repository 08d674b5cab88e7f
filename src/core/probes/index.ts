// Probes (issue 22): what a compaction lost, asked as questions. Generation, the offline score, the
// online check's prompt and answers, and recorded compactions' probes.
export { DEFAULT_MAX_PROBES, generateProbes, generateProbesSteps } from './generate';
export {
  probeRoot,
  scoreOnText,
  scorePlan,
  scorePlanSteps,
  scoreProbes,
  summarise,
  type PlanProbeOptions,
  type ScoreOptions,
} from './score';
export { parseProbeAnswers, probeQuestionsPrompt } from './ask';
export {
  NoSuchCompactionError,
  recordedAfter,
  recordedArchived,
  recordedCompactionProbes,
  recordedCompactionProbesSteps,
} from './recorded';
export { normalise as normaliseProbeText } from './normalize';
export * from './types';
