// Approvals between the agent and the user's clicks: a pending approval per tool call, decisions
// that arrive before the agent asks (the card is shown as soon as the call streams in, and a fast
// click can beat the agent's request), and rejection of everything pending on stop or a new chat.
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../tools';

export interface ApprovalBrokerDeps {
  /** Whether the chat shows `toolUseId` as waiting for approval (only then is an early decision kept). */
  isAwaitingApproval(toolUseId: string): boolean;
  log: { warn(message: string): void };
}

/** What `decide` did with a decision. */
export type DecisionOutcome = 'resolved' | 'early' | 'ignored';

export class ApprovalBroker implements ApprovalGate {
  private readonly pending = new Map<string, (d: ApprovalDecision) => void>();
  /** Decisions that arrived before the agent asked. */
  private readonly early = new Map<string, ApprovalDecision>();

  constructor(private readonly deps: ApprovalBrokerDeps) {}

  /** The agent asks; resolves with the user's decision, or a rejection when `signal` aborts. */
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolveDecision) => {
      const done = (d: ApprovalDecision) => {
        signal.removeEventListener('abort', onAbort);
        resolveDecision(d);
      };
      const onAbort = () => {
        this.pending.delete(req.toolUseId);
        done({ approved: false, reason: 'Stopped by the user.' });
      };
      if (signal.aborted) return onAbort();
      const early = this.early.get(req.toolUseId);
      if (early) {
        this.early.delete(req.toolUseId);
        return resolveDecision(early);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(req.toolUseId, done);
    });
  }

  /** The user decided on `toolUseId`: resolve the agent's request, or keep the decision until it asks. */
  decide(toolUseId: string, decision: ApprovalDecision): DecisionOutcome {
    const resolve = this.pending.get(toolUseId);
    if (!resolve) {
      if (this.deps.isAwaitingApproval(toolUseId)) {
        this.early.set(toolUseId, decision);
        return 'early';
      }
      this.deps.log.warn(`No approval is pending for ${toolUseId}; ignored.`);
      return 'ignored';
    }
    this.pending.delete(toolUseId);
    resolve(decision);
    return 'resolved';
  }

  /** Reject every pending approval with `reason` and forget early decisions. */
  rejectAll(reason: string): void {
    this.early.clear();
    for (const [id, resolve] of this.pending) {
      this.pending.delete(id);
      resolve({ approved: false, reason });
    }
  }

  /** How many approvals the agent is waiting for. */
  get pendingCount(): number {
    return this.pending.size;
  }
}
