// The loss report: what a plan takes out of the model's view without it surviving anywhere in the new
// context — prompts neither kept nor in the ledger, files and commands the ledger folded away,
// unresolved errors, images and thinking blocks of the archived messages.
import { blocksOf, isTurnStart, type Message } from '../conversation/conversation';
import type { ArtifactLedger, LossReport } from './ledger';
import { instructionText, rawLedgerSteps, STEP_ITEMS } from './ledgerExtract';
import { runSteps, type Steps } from '../base/slicedWork';

function countBlocks(m: Message, types: ReadonlySet<string>): number {
  let n = 0;
  for (const b of blocksOf(m)) {
    if (types.has(b.type)) n++;
    if (b.type === 'tool_result' && Array.isArray(b.content))
      n += (b.content as Array<{ type: string }>).filter((c) => types.has(c.type)).length;
  }
  return n;
}

const IMAGE = new Set(['image']);
const THINKING = new Set(['thinking', 'redacted_thinking']);

/**
 * What `archived` (the real messages a plan drops) loses, given the ledger the plan carries and the
 * ids it keeps (kept or pinned messages survive verbatim).
 */
export function lossReport(
  archived: readonly Message[],
  ledger: ArtifactLedger | null,
  keptIds: ReadonlySet<string>,
  archivedRaw?: ArtifactLedger,
): LossReport {
  return runSteps(lossReportSteps(archived, ledger, keptIds, archivedRaw));
}

/**
 * lossReport, yielding every STEP_ITEMS messages. `archivedRaw`: rawLedger(archived) when the caller has
 * it (no transcript path): the plan's dropped messages are most often all of them, and it is not read again.
 */
export function* lossReportSteps(
  archived: readonly Message[],
  ledger: ArtifactLedger | null,
  keptIds: ReadonlySet<string>,
  archivedRaw?: ArtifactLedger,
): Steps<LossReport> {
  const dropped = archived.filter((m) => !keptIds.has(m.id) && !m.synthetic);
  const raw = archivedRaw && dropped.length === archived.length ? archivedRaw : yield* rawLedgerSteps(dropped);
  const l = ledger ?? { files: [], commands: [], errors: [], instructions: [] };
  const paths = new Set(l.files.map((f) => f.path));
  const commandsLeft = new Map<string, number>();
  for (const c of l.commands)
    commandsLeft.set(`${c.command}\u0000${c.exitCode}`, (commandsLeft.get(`${c.command}\u0000${c.exitCode}`) ?? 0) + 1);
  const commands = raw.commands.filter((c) => {
    const key = `${c.command}\u0000${c.exitCode}`;
    const left = commandsLeft.get(key) ?? 0;
    if (left > 0) commandsLeft.set(key, left - 1);
    return left === 0;
  });
  const errorTexts = new Set(l.errors.map((e) => e.text));
  const instructions = new Set(l.instructions);
  const lostInstructions: string[] = [];
  let images = 0;
  let thinkingBlocks = 0;
  for (let i = 0; i < dropped.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0) yield;
    const m = dropped[i];
    if (isTurnStart(m)) {
      const t = instructionText(m);
      if (t !== '' && !instructions.has(t)) lostInstructions.push(t);
    }
    images += countBlocks(m, IMAGE);
    thinkingBlocks += countBlocks(m, THINKING);
  }
  return {
    files: raw.files.filter((f) => !paths.has(f.path)),
    commands,
    errors: raw.errors.filter((e) => !e.resolved && !errorTexts.has(e.text)),
    instructions: lostInstructions,
    images,
    thinkingBlocks,
  };
}
