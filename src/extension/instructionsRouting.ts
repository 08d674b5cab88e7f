// The chat's standing instructions (issue 23): the header's list of instruction sources in force (sent
// or listed only, cut), "Allow instruction files" in an untrusted workspace, and "keep as instruction"
// on a prompt (and its removal). The view is told the list whenever it may have changed. No `vscode` import.
import type { AgentController } from '../agent/service/controller';
import type { HostToChat } from '../protocol';

/** What the header needs of the controller. */
export type InstructionsControl = Pick<AgentController, 'standing'>;

export class InstructionsRouting {
  /** The list the view was last told (JSON): sent only when it changes (or when forced). */
  private sent: string | undefined;

  constructor(
    private readonly controller: InstructionsControl,
    private readonly post: (m: HostToChat) => void,
  ) {}

  /** Tells the view the instruction sources in force when they changed since it was last told. */
  send(force = false): void {
    const standing = this.controller.standing;
    const message: HostToChat = { type: 'instructions', items: standing.list(), listedOnly: standing.listedOnly };
    const key = JSON.stringify(message);
    if (!force && key === this.sent) return;
    this.sent = key;
    this.post(message);
  }

  handlers() {
    const standing = this.controller.standing;
    return {
      allowInstructions: () => {
        standing.allow();
        this.send();
      },
      keepAsInstruction: (msg: { messageId: string }) => {
        if (!standing.keep(msg.messageId))
          throw new Error('That prompt cannot be kept as an instruction: it is not in this chat, or it is already kept.');
        this.send();
      },
      removeInstruction: (msg: { messageId: string }) => {
        standing.remove(msg.messageId);
        this.send();
      },
    };
  }
}
