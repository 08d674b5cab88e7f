// What a Codex user-role text part is: a genuine prompt, a compaction summary, or one of the harness's
// context injections (Codex calls them "contextual user fragments": model-visible, never user intent).
import type { ArtefactKind } from '../conversation/conversation';

/**
 * The text Codex puts before a locally written compaction summary (codex-rs templates/compact/summary_prefix.md,
 * first sentence); a user message that starts with it is the summary, not a prompt.
 */
export const CODEX_SUMMARY_PREFIX = 'Another language model started to solve this problem and produced a summary of its thinking process.';

/**
 * How each Codex context injection is classified (the text part's start, case-insensitive):
 * - `<turn_aborted>` (the user interrupted the previous turn)                      -> 'interruption'
 * - `<environment_context>` (cwd, shell, date, sandbox: harness state),
 *   `<subagent_notification>` (a sub-agent's status)                               -> 'notification'
 * - `<user_shell_command>` (the user ran `!cmd` in the TUI)                         -> 'shell-input'
 * - the project's standing instructions: `# AGENTS.md instructions for …`, `<user_instructions>`,
 *   `<INSTRUCTIONS>`                                                               -> 'instructions'
 * - other harness instructions: `<skill>`, `<plugins>`, `<recommended_plugins>`, `<subagents>`, `<permissions instructions>`,
 *   `<collaboration_mode>`, `<apps_instructions>`, `<skills_instructions>`, `<plugins_instructions>`
 *                                                                                  -> 'meta'
 * Developer- and system-role messages (permissions, collaboration mode, apps/skills instructions) are
 * imported as user-role 'meta' artefacts: the model read them, the Messages API has no such role.
 * Everything else a person's user message holds is the prompt.
 */
const CODEX_CONTEXT_TAGS: ReadonlyArray<readonly [prefix: string, kind: ArtefactKind]> = [
  ['<turn_aborted>', 'interruption'],
  ['<environment_context>', 'notification'],
  ['<subagent_notification>', 'notification'],
  ['<user_shell_command>', 'shell-input'],
  ['# AGENTS.md instructions for', 'instructions'],
  ['<user_instructions>', 'instructions'],
  ['<INSTRUCTIONS>', 'instructions'],
  ['<skill>', 'meta'],
  ['<plugins>', 'meta'],
  ['<recommended_plugins>', 'meta'],
  ['<subagents>', 'meta'],
  ['<permissions instructions>', 'meta'],
  ['<collaboration_mode>', 'meta'],
  ['<apps_instructions>', 'meta'],
  ['<skills_instructions>', 'meta'],
  ['<plugins_instructions>', 'meta'],
];

/** What a user-role text part is: an artefact kind, 'summary', or 'prompt'. */
export type CodexTextRole = ArtefactKind | 'summary' | 'prompt';

export function classifyCodexUserText(text: string): CodexTextRole {
  const start = text.trimStart();
  if (start.startsWith(CODEX_SUMMARY_PREFIX)) return 'summary';
  const lower = start.slice(0, 40).toLowerCase();
  for (const [prefix, kind] of CODEX_CONTEXT_TAGS) if (lower.startsWith(prefix.toLowerCase())) return kind;
  return 'prompt';
}

/** A summary whose text the recording does not hold (the recorder's REDACTED, or nothing after the prefix). */
export function isRedactedSummary(text: string): boolean {
  const t = text.trim();
  const end = t.indexOf(SUMMARY_PREFIX_END);
  const body =
    end >= 0 ? t.slice(end + SUMMARY_PREFIX_END.length) : t.startsWith(CODEX_SUMMARY_PREFIX) ? t.slice(CODEX_SUMMARY_PREFIX.length) : t;
  return /^(REDACTED)?[\s.]*$/.test(body.trim());
}

/** The last words of the summary prefix; the summary itself follows them. */
const SUMMARY_PREFIX_END = 'to assist with your own analysis:';
