// The real recorded sessions the tests read (test/fixtures/real-sessions/, copied into the repository with
// their licences; see its README), with what is
// known about each from the recording itself: the compactions its agent did.
export const REAL_SESSIONS_DIR = 'test/fixtures/real-sessions';

export const REAL_SESSIONS = [
  { file: `${REAL_SESSIONS_DIR}/claude-code-cipher-box-a.jsonl`, format: 'claude-code-jsonl', compactions: 1 },
  { file: `${REAL_SESSIONS_DIR}/claude-code-cipher-box-b.jsonl`, format: 'claude-code-jsonl', compactions: 1 },
  { file: `${REAL_SESSIONS_DIR}/codex-agentv-a.jsonl`, format: 'codex-rollout-jsonl', compactions: 1 },
  { file: `${REAL_SESSIONS_DIR}/codex-agentv-b.jsonl`, format: 'codex-rollout-jsonl', compactions: 2 },
] as const;

/** The keys `inspect --json` promises (tests and other tools rely on them). */
export const INSPECT_KEYS = [
  'format',
  'messages',
  'contextTokens',
  'estimatedInputTokens',
  'recordedInputTokens',
  'genuinePrompts',
  'rolledBackPrompts',
  'compactions',
  'warnings',
] as const;
export const COMPACTION_KEYS = ['source', 'trigger', 'preTokens', 'archivedMessages', 'summaryTokens'] as const;
