// The chat sidebar feature: the view, its router (one handler per message type), and the
// controller's chat events relayed to it (the pending edits too). Notices go to the chat when it is
// visible, otherwise (and always for errors) to a notification. What it needs of other features
// comes in its constructor (ChatActions): their actions and their events.
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import type { Event } from '../core';
import type { ChatToHost } from '../protocol';
import { ChatViewProvider } from './chatView';
import type { RestorePlanShown } from './checkpointRestore';
import { composerHandlers } from './composerRouting';
import { Disposable } from './lifecycle';
import { pinHandlers, pinnedIdsOf } from './pinRouting';
import { probeHandlers } from './probeRouting';
import { pendingEditsOf, reviewHandlers, type ChatReview } from './reviewRouting';
import { createRouter, reportFailure, type FailureSink, type MessageHandlers } from './router';
import { compactAndReport } from './sessionCommands';
import { InstructionsRouting } from './instructionsRouting';
import { TodoRouting } from './todoRouting';

/** What the chat's buttons do beyond the controller, and what it follows, from the features that own it. */
export interface ChatActions {
  getApiKey(): Promise<string | undefined>;
  /** The key was saved or removed (ApiKeyCommands; absent when that feature did not start). */
  onDidChangeKey?: Event<void>;
  promptForApiKey(): Promise<void>;
  openInspector(): Promise<void> | void;
  openTranscript(path: string): Promise<void>;
  /** File review: pending edits in the diff editor, restores to a checkpoint (reviewRouting.ts). */
  review: ChatReview;
  /** Restore plans to show (CheckpointRestore; absent when that feature did not start). */
  onDidChangeRestorePlan?: Event<RestorePlanShown>;
}

export class ChatFeature extends Disposable {
  private readonly view: ChatViewProvider;
  /** The pinned ids the view was last told (sorted, joined): 'pins' is sent only when they change. */
  private sentPins = '';

  constructor(
    extensionUri: vscode.Uri,
    controller: AgentController,
    actions: ChatActions,
    log: vscode.LogOutputChannel,
    sink: FailureSink,
  ) {
    super();
    const sendProposals = () => this.view.post({ type: 'proposals', items: pendingEditsOf(controller.review) });
    const todo = new TodoRouting(controller, (m) => this.view.post(m));
    const instructions = new InstructionsRouting(controller, (m) => this.view.post(m));
    const route = createRouter<ChatToHost>(
      'Chat view',
      {
        ...chatHandlers(controller, actions, {
          sendState: () => this.sendState(),
          sendPins: (force) => this.sendPins(controller, force),
          sendProposals,
          sendTodo: () => {
            todo.send(true);
            instructions.send(true);
          },
        }),
        ...todo.handlers(),
        ...instructions.handlers(),
        ...composerHandlers(controller, (m) => this.view.post(m), log),
      },
      sink,
    );
    const state = async () => controller.chatState(!!(await actions.getApiKey()));
    this.view = this.register(new ChatViewProvider(extensionUri, state, (msg) => void route(msg), log));
    this.register(vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, this.view));
    this.register(
      controller.onDidChangeChat((c) =>
        this.view.post(c.kind === 'item' ? { type: 'item', item: c.item } : { type: 'delta', id: c.id, text: c.text }),
      ),
    );
    this.register(controller.onDidResetChat(() => this.sendState()));
    // Pins change from either view (and persist with the session): the chat follows the session.
    this.register(controller.onDidChangeSession(() => this.sendPins(controller)));
    // The task list changes with the session's meta (the todo tool during a turn, an edit) or with the session.
    this.register(controller.onDidChangeSession(() => todo.send()));
    this.register(controller.onDidResetChat(() => todo.send()));
    // The instructions in force: a kept prompt (session meta), a nested file that joined, "Allow", a new chat.
    for (const changed of [controller.onDidChangeSession, controller.onDidResetChat, controller.standing.onDidChange])
      this.register(changed(() => instructions.send()));
    this.register(vscode.commands.registerCommand('splitpoint.allowInstructionFiles', () => controller.standing.allow()));
    this.register(controller.onDidChangeBusy((b) => this.view.post({ type: 'busy', busy: b.busy, compacting: b.compacting })));
    this.register(controller.onDidChangeContext((c) => this.view.post({ type: 'context', context: c })));
    this.register(controller.review.onDidChangeProposals(sendProposals));
    if (actions.onDidChangeKey) this.register(actions.onDidChangeKey(() => this.sendState()));
    if (actions.onDidChangeRestorePlan) this.register(actions.onDidChangeRestorePlan((shown) => void this.showRestorePlan(shown, sink)));
    this.register(
      controller.onNotice((n) => {
        if (n.level === 'error') void vscode.window.showErrorMessage(`Splitpoint: ${n.message}`);
        else if (!this.view.visible) void vscode.window.showInformationMessage(`Splitpoint: ${n.message}`);
      }),
    );
  }

  /** Sends the whole chat state again (the key or the settings changed). */
  sendState(): void {
    this.view.sendState();
  }

  /** Tells the view the session's pinned ids when they changed since it was last told. */
  private sendPins(controller: AgentController, force = false): void {
    const ids = pinnedIdsOf(controller);
    const key = ids.join('\n');
    if (!force && key === this.sentPins) return;
    this.sentPins = key;
    this.view.post({ type: 'pins', ids });
  }

  reveal(): Promise<void> {
    return this.view.reveal();
  }

  /** A restore plan, with the chat brought into view first when it was asked for from outside. */
  private async showRestorePlan(shown: RestorePlanShown, sink: FailureSink): Promise<void> {
    try {
      if (shown.reveal) await this.reveal();
    } catch (e) {
      reportFailure('Chat view', 'reveal', e, sink);
    }
    this.view.post(shown.message);
  }
}

type InstructionsMessage = 'allowInstructions' | 'keepAsInstruction' | 'removeInstruction';

/** What the chat's handlers send to the view: the whole state, the pins, the pending edits. */
interface ChatSenders {
  sendState(): void;
  sendPins(force: boolean): void;
  sendProposals(): void;
  sendTodo(): void;
}

function chatHandlers(
  controller: AgentController,
  actions: ChatActions,
  { sendState, sendPins, sendProposals, sendTodo }: ChatSenders,
): MessageHandlers<Exclude<ChatToHost, { type: 'send' | 'listFiles' | 'setTodo' | InstructionsMessage }>> {
  return {
    ready: () => {
      sendState();
      sendPins(true);
      sendProposals();
      sendTodo();
    },
    ...pinHandlers(controller, () => sendPins(false)),
    ...probeHandlers(controller),
    ...reviewHandlers(controller, actions.review),
    stop: () => controller.stop(),
    retry: () => controller.retry(),
    approve: (msg) => void controller.approve(msg.toolUseId, msg.alwaysAllow),
    reject: (msg) => void controller.reject(msg.toolUseId, msg.reason),
    newChat: () => controller.newChat(),
    setApiKey: () => actions.promptForApiKey(),
    compact: (msg) => compactAndReport(controller, msg.focus),
    openInspector: () => actions.openInspector(),
    openTranscript: (msg) => actions.openTranscript(msg.path),
    pickModel: () => void vscode.commands.executeCommand('splitpoint.pickModel'),
  };
}
