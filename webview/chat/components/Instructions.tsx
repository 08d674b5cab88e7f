// The standing instructions in the chat (issue 23): a header line naming the instruction sources every
// request carries (AGENTS.md, CLAUDE.md, nested files, the user's setting, prompts kept from the chat),
// which are only listed (an untrusted workspace: "Allow" sends them), and which were cut to the caps;
// and the "Keep as instruction" toggle on a prompt, next to its pin.
import type { InstructionInfo } from '../../../src/protocol';
import { formatInt } from '../../shared/format';
import { useStore } from '../context';

const ALLOW_TITLE =
  'This workspace is not trusted: its instruction files are listed but not sent. ' +
  'Allow sends them from the next request on (remembered for this workspace).';

function describe(i: InstructionInfo): string {
  const state = !i.sent
    ? 'listed, not sent'
    : i.truncated
      ? `cut: ${formatInt(i.chars)} of ${formatInt(i.originalChars)} characters sent`
      : 'sent';
  return `${i.name} (${state})`;
}

export function InstructionsHeader({ items, listedOnly }: { items: readonly InstructionInfo[]; listedOnly: boolean }) {
  const store = useStore();
  if (items.length === 0) return null;
  return (
    <section class="instructions-header" aria-label="Standing instructions">
      <span class="instructions-label" title="Sent with every request, outside the history: no compaction removes them.">
        Instructions:
      </span>
      <ul class="instructions-list">
        {items.map((i) => (
          <li
            key={i.messageId ?? i.name}
            class={`instruction${i.sent ? '' : ' listed-only'}${i.truncated ? ' truncated' : ''}`}
            data-name={i.name}
            data-sent={String(i.sent)}
            title={describe(i)}
          >
            <span class="instruction-name">{i.name}</span>
            {!i.sent ? <span class="instruction-note"> (not sent)</span> : null}
            {i.truncated ? <span class="instruction-note"> (cut)</span> : null}
            {i.kind === 'chat' && i.messageId ? (
              <button
                type="button"
                class="instruction-remove"
                data-action="removeInstruction"
                aria-label={`Stop sending ${i.name} as an instruction`}
                title="Stop sending this prompt as an instruction"
                onClick={() => store.removeInstruction(i.messageId!)}
              >
                ×
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {listedOnly ? (
        <button
          type="button"
          class="instructions-allow"
          data-action="allowInstructions"
          title={ALLOW_TITLE}
          onClick={() => store.allowInstructions()}
        >
          Allow instruction files
        </button>
      ) : null}
    </section>
  );
}

/** On a prompt, next to the pin: keep its text as a standing instruction (sent with every request), or stop. */
export function KeepButton({ messageId, kept }: { messageId: string; kept: boolean }) {
  const store = useStore();
  return (
    <button
      type="button"
      class={`keep-button${kept ? ' kept' : ''}`}
      data-action={kept ? 'removeInstruction' : 'keepAsInstruction'}
      data-message-id={messageId}
      aria-pressed={kept}
      aria-label={kept ? 'Stop keeping your message as an instruction' : 'Keep your message as an instruction: sent with every request'}
      title={
        kept
          ? 'Kept as an instruction: sent with every request, outside the history. Click to stop.'
          : 'Keep as instruction: send this prompt with every request, outside the history (no compaction archives it)'
      }
      onClick={() => (kept ? store.removeInstruction(messageId) : store.keepAsInstruction(messageId))}
    >
      {kept ? 'Instruction' : 'Keep'}
    </button>
  );
}
