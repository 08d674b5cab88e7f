// The loss report: what a plan takes out of the model's view without it surviving anywhere in the new
// context — prompts neither kept nor in the ledger, files and commands the ledger folded away,
// unresolved errors, images and thinking blocks of the archived messages.
import { blocksOf, isTurnStart, type Message } from '../conversation/conversation';
import type { ArtifactLedger, LossReport } from './ledger';
import { instructionText, rawLedger } from './ledgerExtract';

function countBlocks(messages: readonly Message[], types: ReadonlySet<string>): number {
  let n = 0;
  for (const m of messages) {
    for (const b of blocksOf(m)) {
      if (types.has(b.type)) n++;
      if (b.type === 'tool_result' && Array.isArray(b.content))
        n += (b.content as Array<{ type: string }>).filter((c) => types.has(c.type)).length;
    }
  }
  return n;
}

/**
 * What `archived` (the real messages a plan drops) loses, given the ledger the plan carries and the
 * ids it keeps (kept or pinned messages survive verbatim).
 */
export function lossReport(archived: readonly Message[], ledger: ArtifactLedger | null, keptIds: ReadonlySet<string>): LossReport {
  const dropped = archived.filter((m) => !keptIds.has(m.id) && !m.synthetic);
  const raw = rawLedger(dropped);
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
  return {
    files: raw.files.filter((f) => !paths.has(f.path)),
    commands,
    errors: raw.errors.filter((e) => !e.resolved && !errorTexts.has(e.text)),
    instructions: dropped
      .filter(isTurnStart)
      .map((m) => instructionText(m))
      .filter((t) => t !== '' && !instructions.has(t)),
    images: countBlocks(dropped, new Set(['image'])),
    thinkingBlocks: countBlocks(dropped, new Set(['thinking', 'redacted_thinking'])),
  };
}
