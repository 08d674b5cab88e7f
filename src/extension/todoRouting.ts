// The chat's checklist of the agent's task list: the user's edits (a whole new list, validated by the
// protocol) are stored with the session, and the view is told the list whenever the session's list
// changes (the todo tool during a turn, an edit, a new chat or a resume). No `vscode` import.
import type { AgentController } from '../agent/service/controller';
import { sessionTodo, setSessionTodo, type TodoItem } from '../core';
import type { HostToChat } from '../protocol';

/** What the checklist needs of the controller: the current session. */
export type TodoControl = Pick<AgentController, 'session'>;

export class TodoRouting {
  /** The list the view was last told (JSON): 'todo' is sent only when it changes (or when forced). */
  private sent: string | undefined;

  constructor(
    private readonly controller: TodoControl,
    private readonly post: (m: HostToChat) => void,
  ) {}

  /** Tells the view the session's list when it changed since it was last told. */
  send(force = false): void {
    const items = sessionTodo(this.controller.session);
    const key = JSON.stringify(items);
    if (!force && key === this.sent) return;
    this.sent = key;
    this.post({ type: 'todo', items });
  }

  handlers() {
    return {
      setTodo: (msg: { items: TodoItem[] }) => {
        setSessionTodo(this.controller.session, msg.items);
        this.send();
      },
    };
  }
}
