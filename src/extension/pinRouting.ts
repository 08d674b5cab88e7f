// Pin / unpin intents from either webview, routed to the controller (which persists pins with the
// session). No `vscode` import. Until the controller has pins, an intent fails with a message the
// router shows, instead of being dropped silently.
import type { AgentController } from '../agent/controller';

/** What the views need of the controller's pins. */
export interface PinControl {
  pin(id: string): unknown;
  unpin(id: string): unknown;
  pinnedIds(): Iterable<string>;
}

/** The controller's pins, or undefined when this build's controller has none. */
export function pinControl(controller: AgentController): PinControl | undefined {
  const c = controller as unknown as Partial<PinControl>;
  return typeof c.pin === 'function' && typeof c.unpin === 'function' && typeof c.pinnedIds === 'function'
    ? (controller as unknown as PinControl)
    : undefined;
}

/** The session's pinned ids, sorted (empty when pins are unavailable). */
export function pinnedIdsOf(controller: AgentController): string[] {
  const pins = pinControl(controller);
  return pins ? [...pins.pinnedIds()].sort() : [];
}

/** Handlers for 'pin' and 'unpin' (refused unless `allowed()`): each calls the controller, then `after` (the view learns the new set). */
export function pinHandlers(controller: AgentController, after: () => void, allowed: () => boolean = () => true) {
  const run = async (what: 'pin' | 'unpin', id: string): Promise<void> => {
    if (!allowed()) throw new Error('Pins belong to the current session: show it to pin or unpin a message.');
    const pins = pinControl(controller);
    if (!pins) throw new Error('Pins are not available in this build.');
    await (what === 'pin' ? pins.pin(id) : pins.unpin(id));
    after();
  };
  return {
    pin: (msg: { id: string }) => run('pin', msg.id),
    unpin: (msg: { id: string }) => run('unpin', msg.id),
  };
}
