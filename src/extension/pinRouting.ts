// Pin / unpin intents from either webview, routed to the controller (which persists pins with the
// session). No `vscode` import.
import type { AgentController } from '../agent/service/controller';

/** What the views need of the controller's pins. */
export type PinControl = Pick<AgentController, 'pin' | 'unpin' | 'pinnedIds'>;

/** The session's pinned ids, sorted. */
export function pinnedIdsOf(controller: PinControl): string[] {
  return [...controller.pinnedIds()].sort();
}

/**
 * Handlers for 'pin' and 'unpin' (refused unless `allowed()`): each calls the controller (an unknown
 * id throws, and the router shows it), then `after` (the view learns the new set).
 */
export function pinHandlers(controller: PinControl, after: () => void, allowed: () => boolean = () => true) {
  const run = (what: 'pin' | 'unpin', id: string): void => {
    if (!allowed()) throw new Error('Pins belong to the current session: show it to pin or unpin a message.');
    if (what === 'pin') controller.pin(id);
    else controller.unpin(id);
    after();
  };
  return {
    pin: (msg: { id: string }) => run('pin', msg.id),
    unpin: (msg: { id: string }) => run('unpin', msg.id),
  };
}
