// "Check this compaction" (issue 22) from the chat and the command palette: the divider's button and a
// card's actions routed to the controller's probe checks; the command (optionally given a compaction
// id, as the inspector does) shows the check's estimated cost and runs it on a confirmation.
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';

type ProbeControl = Pick<AgentController, 'probes'>;

/** Handlers for the chat's 'checkCompaction' and 'probeAction' (a failure is shown by the router). */
export function probeHandlers(controller: ProbeControl) {
  return {
    checkCompaction: async (msg: { compactionId: string }): Promise<void> => {
      await controller.probes.check(msg.compactionId);
    },
    probeAction: (msg: { checkId: string; probeId: string; action: 'pin' | 'addToLedger' | 'undo' }): void =>
      controller.probes.act(msg.checkId, msg.probeId, msg.action),
  };
}

/**
 * `splitpoint.checkCompaction [compactionId]`: the last compaction by default. Its estimated cost is
 * shown first; nothing is sent unless the user confirms. The card appears in the chat (revealed).
 */
export async function checkCompactionCommand(controller: ProbeControl, chat: { reveal(): Promise<void> }, id?: unknown): Promise<void> {
  const compactionId = typeof id === 'string' && id !== '' ? id : undefined;
  const record = controller.probes.offerFor(compactionId);
  const { offer } = record;
  const cost = `≈ $${offer.estimateUSD.toFixed(offer.estimateUSD >= 1 ? 2 : 4)}`;
  const pick = await vscode.window.showInformationMessage(
    `Splitpoint: ask ${offer.probes} probe questions about what the compaction archived of ${offer.model}` +
      ` (${offer.inputTokens.toLocaleString()} input tokens, ${cost})?`,
    'Check',
  );
  if (pick !== 'Check') return;
  await chat.reveal().catch(() => undefined);
  await controller.probes.check(record.id);
}
