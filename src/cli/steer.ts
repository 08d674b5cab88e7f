// `splitpoint plan … --pin ID[,ID…] --split-at ID`: the steering flags of issue 13, checked against the
// messages planned on (an id that is not there exits 2 naming it), and the JSON the contract promises:
// `pinned` (ids), `ledger` and `lost` as {files, commands, errors, instructions} with exact keys.
import { resolvePins, type ArtifactLedger, type CompactionPlan, type Message } from '../core';
import { one, UsageError, type ParsedArgs } from './args';

export interface Steering {
  /** The closed pin set (a tool_use pins its tool_result and back); empty without --pin. */
  pinnedIds: Set<string>;
  splitAtId: string | undefined;
}

/** The ids `--pin` names (repeatable, each comma-separated), in order, without repeats. */
export function pinArgs(args: ParsedArgs): string[] {
  const ids: string[] = [];
  for (const raw of args.flags.get('--pin') ?? []) {
    for (const id of raw.split(',')) {
      const trimmed = id.trim();
      if (trimmed === '') throw new UsageError(`--pin expects ID[,ID…], got "${raw}"`);
      if (!ids.includes(trimmed)) ids.push(trimmed);
    }
  }
  return ids;
}

/** The strategy `--split-at` implies (split-at), or a usage error when --strategy names another. */
export function strategyFor(args: ParsedArgs): string | undefined {
  const strategy = one(args, '--strategy');
  const splitAt = one(args, '--split-at');
  if (splitAt === undefined) return strategy;
  if (strategy !== undefined && strategy !== 'split-at') {
    throw new UsageError(`--split-at plans with the split-at strategy; --strategy ${strategy} cannot be combined with it`);
  }
  return 'split-at';
}

/** --pin and --split-at against the messages planned on: an id that is not there exits 2 naming it. */
export function steering(file: string, args: ParsedArgs, input: readonly Message[]): Steering {
  const splitAtId = one(args, '--split-at');
  if (splitAtId !== undefined) {
    const target = input.find((m) => m.id === splitAtId);
    if (!target) throw new UsageError(`--split-at ${splitAtId}: ${file} has no message with that id in the context planned on`);
  }
  const ids = pinArgs(args);
  if (ids.length === 0) return { pinnedIds: new Set(), splitAtId };
  const pins = resolvePins(input, ids);
  if (!pins.ok) throw new UsageError(`--pin ${pins.error.id}: ${pins.error.message} (${file})`);
  return { pinnedIds: pins.pinned, splitAtId };
}

export interface LedgerJson {
  files: Array<{ path: string; read: number; edited: number; created: number }>;
  commands: Array<{ command: string; exitCode: number | null }>;
  errors: Array<{ text: string; resolved: boolean }>;
  instructions: string[];
}

/** A ledger (or loss report) in the contract's exact keys; the empty shape when the plan has none. */
export function ledgerJson(ledger: ArtifactLedger | null | undefined): LedgerJson {
  return {
    files: (ledger?.files ?? []).map((f) => ({ path: f.path, read: f.read, edited: f.edited, created: f.created })),
    commands: (ledger?.commands ?? []).map((c) => ({ command: c.command, exitCode: c.exitCode })),
    errors: (ledger?.errors ?? []).map((e) => ({ text: e.text, resolved: e.resolved })),
    instructions: [...(ledger?.instructions ?? [])],
  };
}

/** The steering part of `plan --json`: what the plan pins, carries and loses (never invented: from the plan). */
export function steeringJson(plan: CompactionPlan) {
  return {
    pinned: [...(plan.pinned ?? [])],
    pinnedTokens: plan.pinnedTokens ?? 0,
    ledger: ledgerJson(plan.ledger),
    lost: ledgerJson(plan.lost),
    lostMedia: { images: plan.lost?.images ?? 0, thinkingBlocks: plan.lost?.thinkingBlocks ?? 0 },
  };
}

/** One line each for the table: pins, the ledger and the loss report, by counts. */
export function steeringLines(plan: CompactionPlan): string[] {
  const lines: string[] = [];
  if (plan.pinned && plan.pinned.length > 0) lines.push(`pinned     ${plan.pinned.length} messages (${plan.pinnedTokens ?? 0} tokens)`);
  const count = (l: LedgerJson) =>
    `${l.files.length} files, ${l.commands.length} commands, ${l.errors.length} errors, ${l.instructions.length} prompts`;
  if (plan.ledger) lines.push(`ledger     ${count(ledgerJson(plan.ledger))}`);
  if (plan.lost) {
    const media = `${plan.lost.images} images, ${plan.lost.thinkingBlocks} thinking blocks`;
    lines.push(`lost       ${count(ledgerJson(plan.lost))}, ${media}`);
  }
  return lines;
}
