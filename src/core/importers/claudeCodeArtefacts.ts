// Which Claude Code user lines are artefacts (shown, never a genuine prompt or a turn start), and of
// which kind. A person's prompt is what they typed; Claude Code also writes user-role lines for what its
// harness did around a prompt. The classification, by the text of the line (leading whitespace ignored):
//
//   text starts with                                            kind
//   <command-name> / <command-message> / <command-args>         'command'         (slash-command stub; a
//                                                                                  custom command's stub, answered
//                                                                                  by its isMeta template body, is
//                                                                                  the prompt, the body 'meta')
//   <local-command-stdout> / <local-command-stderr>             'command-output'
//   [Request interrupted by user…                               'interruption'
//   <task-notification>                                         'notification'
//   only <system-reminder> blocks holding the CLAUDE.md memory  'instructions'    ("# claudeMd" context,
//                                                                                  re-injected after a compaction)
//   only <system-reminder>…</system-reminder> blocks            'notification'
//   hook output: <user-prompt-submit-hook>, "<Event> hook       'notification'
//     feedback|error|blocking error|additional context…"
//   <bash-input> / <bash-stdout> / <bash-stderr>                'shell-input'     (`!` shell mode)
//   any other isMeta line (caveats, skill bodies)               'meta'
//
// Attachment lines (`type: "attachment"`): a `queued_command` is a prompt typed while the agent worked (a
// genuine prompt unless its text or commandMode says it is a task notification); files and references
// re-attached after a compaction, IDE selections and the like are 'attachment'; hook output attachments
// are 'notification'; a CLAUDE.md file attached as `nested_memory` is 'instructions'.
import type { ArtefactKind, ContentBlock } from '../conversation/conversation';

const COMMAND = /^<command-(name|message|args)>/;
const COMMAND_OUTPUT = /^<local-command-(stdout|stderr)>/;
const INTERRUPTION = /^\[Request interrupted by user/;
const TASK_NOTIFICATION = /^<task-notification>/;
const SYSTEM_REMINDERS_ONLY = /^(\s*<system-reminder>[\s\S]*?<\/system-reminder>)+\s*$/;
const HOOK_OUTPUT =
  /^(<user-prompt-submit-hook>|(Stop|SubagentStop|PreToolUse|PostToolUse|UserPromptSubmit|SessionStart|SessionEnd|PreCompact|Notification)(:\S+)? hook (feedback|error|blocking error|additional context|success))/i;
const SHELL_INPUT = /^<bash-(input|stdout|stderr)>/;
/** Claude Code's user context (`prependUserContext`): the CLAUDE.md files under a `# claudeMd` heading. */
const CLAUDE_MD_CONTEXT = /^<system-reminder>\s*As you answer the user's questions, you can use the following context:\s*# claudeMd\b/;

/** The text of a user line's text blocks (images and other blocks ignored), joined by newlines. */
export function userText(content: string | readonly ContentBlock[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** The artefact kind of a user line by its text (see the table above); undefined for a genuine prompt. */
export function artefactKindOf(text: string, isMeta: boolean): ArtefactKind | undefined {
  const t = text.trimStart();
  if (COMMAND.test(t)) return 'command';
  if (COMMAND_OUTPUT.test(t)) return 'command-output';
  if (INTERRUPTION.test(t)) return 'interruption';
  if (TASK_NOTIFICATION.test(t) || HOOK_OUTPUT.test(t)) return 'notification';
  if (t !== '' && SYSTEM_REMINDERS_ONLY.test(t)) return CLAUDE_MD_CONTEXT.test(t) ? 'instructions' : 'notification';
  if (SHELL_INPUT.test(t)) return 'shell-input';
  return isMeta ? 'meta' : undefined;
}

/**
 * What the person typed for a slash-command stub: `<command-name>/review</command-name>` and
 * `<command-args>src/cart.ts</command-args>` are `/review src/cart.ts`; undefined when `text` is no stub.
 */
export function typedCommand(text: string): string | undefined {
  if (!isCommandStub(text)) return undefined;
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1].trim() ?? '';
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1].trim() ?? '';
  return args === '' ? name : `${name} ${args}`;
}

/** A slash-command stub (`<command-name>…`): the isMeta line that follows it is the command's body. */
export function isCommandStub(text: string): boolean {
  return /<command-name>/.test(text) && COMMAND.test(text.trimStart());
}
