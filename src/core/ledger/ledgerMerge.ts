// The ledger accumulates and stays bounded: merging a previous compaction's ledger with the next one,
// rendering it as compact markdown (what the model reads), and fitting it to a token budget by folding
// the oldest entries away (commands first, then resolved errors, errors, files, and instructions last),
// with counts of what was folded. Facts kept on request (ledger.facts) are carried and never folded.
import { runSteps, type Steps } from '../base/slicedWork';
import type { ArtifactLedger, LedgerCommand, LedgerFile } from './ledger';
import { MemoizedMessageCounter, MESSAGE_OVERHEAD_TOKENS, type MessageTokenCounter } from '../counting/tokens';
import { piecewiseExact, splitAtSafeBoundaries } from '../counting/backgroundCounting';

export const LEDGER_HEADING = '## Artifact ledger (from the compacted history)';

/** The line of code names the archived assistant text used. */
export const NAMES_TITLE = 'Names in use:';

/** The rendered section of the facts kept on request. */
export const FACTS_TITLE = 'Facts kept on request:';

const EMPTY_FOLDED = { files: 0, commands: 0, errors: 0, instructions: 0 };

export function emptyLedger(): ArtifactLedger {
  return { files: [], commands: [], errors: [], instructions: [] };
}

export function isEmptyLedger(l: ArtifactLedger): boolean {
  const f = l.folded ?? EMPTY_FOLDED;
  const folded = f.files + f.commands + f.errors + f.instructions;
  return l.files.length + l.commands.length + l.errors.length + l.instructions.length + (l.facts?.length ?? 0) + folded === 0;
}

/** A command run again: one entry at its newest place, with how many times it ran and its last exit status. */
export function addCommand(commands: LedgerCommand[], c: LedgerCommand): void {
  const i = commands.findIndex((x) => x.command === c.command);
  const runs = (i >= 0 ? (commands[i].runs ?? 1) : 0) + (c.runs ?? 1);
  if (i >= 0) commands.splice(i, 1);
  commands.push(runs > 1 ? { command: c.command, exitCode: c.exitCode, runs } : { command: c.command, exitCode: c.exitCode });
}

/** Most names a merged ledger keeps (the newest). */
const MAX_NAMES = 60;

/** `a` then the facts of `b` that `a` does not hold (facts are kept in the order they were asked for). */
export function mergeFacts(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] {
  const out = [...(a ?? [])];
  for (const f of b ?? []) if (!out.includes(f)) out.push(f);
  return out;
}

/** `prev` then `next`: files by path (counts added, last action and position from the newer), the rest appended. */
export function mergeLedgers(prev: ArtifactLedger | null | undefined, next: ArtifactLedger): ArtifactLedger {
  if (!prev) return next;
  const files = new Map<string, LedgerFile>();
  for (const f of [...prev.files, ...next.files]) {
    const old = files.get(f.path);
    files.delete(f.path);
    files.set(
      f.path,
      old
        ? {
            path: f.path,
            read: old.read + f.read,
            edited: old.edited + f.edited,
            created: old.created + f.created,
            lastAction: f.lastAction,
          }
        : { ...f },
    );
  }
  const instructions = [...prev.instructions];
  for (const i of next.instructions) if (!instructions.includes(i)) instructions.push(i);
  const commands: LedgerCommand[] = [];
  for (const c of [...prev.commands, ...next.commands]) addCommand(commands, c);
  const merged: ArtifactLedger = {
    files: [...files.values()],
    commands,
    errors: [...prev.errors, ...next.errors],
    instructions,
  };
  const facts = mergeFacts(prev.facts, next.facts);
  if (facts.length > 0) merged.facts = facts;
  const names = [...(prev.names ?? []).filter((n) => !(next.names ?? []).includes(n)), ...(next.names ?? [])].slice(-MAX_NAMES);
  if (names.length > 0) merged.names = names;
  const a = prev.folded ?? EMPTY_FOLDED;
  const b = next.folded ?? EMPTY_FOLDED;
  const folded = {
    files: a.files + b.files,
    commands: a.commands + b.commands,
    errors: a.errors + b.errors,
    instructions: a.instructions + b.instructions,
  };
  if (folded.files + folded.commands + folded.errors + folded.instructions > 0) merged.folded = folded;
  return merged;
}

function fileLine(f: LedgerFile): string {
  const counts = (['read', 'edited', 'created'] as const).filter((k) => f[k] > 0).map((k) => `${k} ${f[k]}`);
  return `- ${f.path} (${counts.join(', ')}; last ${f.lastAction})`;
}

function foldedLine(l: ArtifactLedger): string | null {
  const f = l.folded;
  if (!f) return null;
  const parts = (['instructions', 'files', 'errors', 'commands'] as const).filter((k) => f[k] > 0).map((k) => `${f[k]} ${k}`);
  return parts.length > 0 ? `(Older entries folded to fit: ${parts.join(', ')}; the transcript has them.)` : null;
}

/** The ledger as compact markdown: the part of the summary turn (or opener) the model reads. */
export function renderLedger(l: ArtifactLedger): string {
  return runSteps(renderLedgerSteps(l));
}

/** Lines rendered between two yields of renderLedgerSteps. */
const RENDER_STEP_LINES = 512;

/** renderLedger, yielding every RENDER_STEP_LINES lines of a section (a huge history's unfitted ledger has thousands). */
function* renderLedgerSteps(l: ArtifactLedger): Steps<string> {
  const out = [LEDGER_HEADING];
  function* section<T>(title: string, entries: readonly T[], line: (e: T) => string): Steps<void> {
    if (entries.length === 0) return;
    out.push(title);
    for (let i = 0; i < entries.length; i++) {
      out.push(line(entries[i]));
      if ((i + 1) % RENDER_STEP_LINES === 0) yield;
    }
  }
  yield* section('User instructions (oldest first):', l.instructions, (i) => `- ${i}`);
  yield* section(FACTS_TITLE, l.facts ?? [], (f) => `- ${f}`);
  yield* section('Files:', l.files, fileLine);
  if (l.names && l.names.length > 0) out.push(`${NAMES_TITLE} ${l.names.map((n) => `\`${n}\``).join(', ')}`);
  yield* section(
    'Commands:',
    l.commands,
    (c) => `- \`${c.command}\` -> exit ${c.exitCode ?? '?'}${c.runs !== undefined && c.runs > 1 ? ` (run ${c.runs} times)` : ''}`,
  );
  yield* section('Errors:', l.errors, (e) => `- ${e.resolved ? '(resolved) ' : '(unresolved) '}${e.text}`);
  const folded = foldedLine(l);
  if (folded) out.push(folded);
  return out.join('\n');
}

/** Tokens the rendered ledger costs as the text of a message. */
export function ledgerTokens(l: ArtifactLedger, counter: MessageTokenCounter): number {
  return counter.countMessage({ id: 'ledger', role: 'user', content: renderLedger(l) });
}

/** Renderings longer than this are counted in pieces by ledgerTokensSteps. */
const LEDGER_PIECE_CHARS = 16_384;

/**
 * ledgerTokens, yielding between pieces: a long rendering (an unfitted ledger of a huge history) counted
 * with an o200k counter is counted in pieces cut where the counts add up exactly (splitAtSafeBoundaries,
 * as the background counter counts a long message), plus the message's framing, as countMessageWith does.
 */
export function* ledgerTokensSteps(l: ArtifactLedger, counter: MessageTokenCounter): Steps<number> {
  const content = yield* renderLedgerSteps(l);
  if (content.length <= LEDGER_PIECE_CHARS || !(counter instanceof MemoizedMessageCounter) || !piecewiseExact(counter.tokenizer))
    return counter.countMessage({ id: 'ledger', role: 'user', content });
  let total = MESSAGE_OVERHEAD_TOKENS;
  for (const piece of splitAtSafeBoundaries(content, LEDGER_PIECE_CHARS)) {
    total += counter.tokenizer.countText(piece);
    yield;
  }
  return total;
}

/**
 * Drop the `n` oldest entries in folding order: names first (not counted: the transcript has them), then
 * commands, resolved errors (oldest first), the other errors, files, and instructions last: what `n`
 * drops of one entry at a time, each from the first category with one, did. In one pass per category
 * (dropping one at a time shifted whole arrays: quadratic, 150 ms at once on a 320,000-message ledger).
 */
function foldMany(l: ArtifactLedger, n: number): void {
  const folded = (l.folded ??= { ...EMPTY_FOLDED });
  let left = n;
  // The oldest entries of `list` that are still to drop, counted as folded in `category` (names are not).
  const drop = <T>(list: T[], category?: keyof typeof EMPTY_FOLDED): T[] => {
    const k = Math.min(left, list.length);
    left -= k;
    if (category) folded[category] += k;
    return k === 0 ? list : list.slice(k);
  };
  if (l.names && l.names.length > 0) {
    l.names = drop(l.names);
    if (l.names.length === 0) delete l.names;
  }
  l.commands = drop(l.commands, 'commands');
  if (left > 0) {
    // The oldest resolved errors, keeping the order of the rest.
    let resolved = Math.min(left, l.errors.filter((e) => e.resolved).length);
    left -= resolved;
    folded.errors += resolved;
    if (resolved > 0) l.errors = l.errors.filter((e) => !(e.resolved && resolved-- > 0));
  }
  l.errors = drop(l.errors, 'errors');
  l.files = drop(l.files, 'files');
  l.instructions = drop(l.instructions, 'instructions');
}

/** A copy of a ledger whose arrays are its own (empty facts and names left out). */
export function copyLedger(ledger: ArtifactLedger): ArtifactLedger {
  return {
    files: [...ledger.files],
    commands: [...ledger.commands],
    errors: [...ledger.errors],
    instructions: [...ledger.instructions],
    ...(ledger.facts && ledger.facts.length > 0 ? { facts: [...ledger.facts] } : {}),
    ...(ledger.names && ledger.names.length > 0 ? { names: [...ledger.names] } : {}),
    ...(ledger.folded ? { folded: { ...ledger.folded } } : {}),
  };
}

/**
 * The ledger within `budgetTokens`: the oldest entries are folded away (commands first, instructions
 * last) until the rendering fits. A budget too small for even the folded counts gives an empty ledger.
 */
export function fitLedger(ledger: ArtifactLedger, budgetTokens: number, counter: MessageTokenCounter): ArtifactLedger {
  return runSteps(fitLedgerSteps(ledger, budgetTokens, counter));
}

/** fitLedger, yielding after each count of the ledger (the folds shrink it about geometrically). */
export function* fitLedgerSteps(ledger: ArtifactLedger, budgetTokens: number, counter: MessageTokenCounter): Steps<ArtifactLedger> {
  const l = copyLedger(ledger);
  let tokens = yield* ledgerTokensSteps(l, counter);
  if (tokens <= budgetTokens) return l;
  // Estimate how many entries to fold from the average entry cost, then correct by re-counting.
  while (tokens > budgetTokens) {
    const entries = l.files.length + l.commands.length + l.errors.length + l.instructions.length + (l.names?.length ?? 0);
    // Facts kept on request are never folded: with nothing else left, they are the ledger.
    if (entries === 0) return l.facts ? { ...emptyLedger(), facts: l.facts } : emptyLedger();
    const perEntry = tokens / entries;
    const drop = Math.max(1, Math.floor((tokens - budgetTokens) / Math.max(1, perEntry) / 2));
    foldMany(l, drop);
    tokens = yield* ledgerTokensSteps(l, counter);
  }
  return l;
}

const isNat = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isStr = (v: unknown): v is string => typeof v === 'string';
/** Most entries of each kind a stored ledger may hold: a larger one is not a ledger Splitpoint wrote. */
export const MAX_LEDGER_ENTRIES = 10_000;

/**
 * A ledger read back from storage (a compaction record in a meta file), checked field by field; null
 * when anything has the wrong shape, so a hand-edited meta never reaches the merge.
 */
export function parseLedger(v: unknown): ArtifactLedger | null {
  if (!v || typeof v !== 'object') return null;
  const l = v as Record<string, unknown>;
  const list = (x: unknown, ok: (e: Record<string, unknown>) => boolean): boolean =>
    Array.isArray(x) && x.length <= MAX_LEDGER_ENTRIES && x.every((e) => !!e && typeof e === 'object' && ok(e as Record<string, unknown>));
  const files = list(
    l.files,
    (f) =>
      isStr(f.path) &&
      isNat(f.read) &&
      isNat(f.edited) &&
      isNat(f.created) &&
      ['read', 'edited', 'created'].includes(f.lastAction as string),
  );
  const commands = list(
    l.commands,
    (c) =>
      isStr(c.command) &&
      (c.exitCode === null || (typeof c.exitCode === 'number' && Number.isInteger(c.exitCode))) &&
      (c.runs === undefined || (isNat(c.runs) && c.runs >= 1)),
  );
  const errors = list(l.errors, (e) => isStr(e.text) && typeof e.resolved === 'boolean');
  const strings = (x: unknown) => Array.isArray(x) && x.length <= MAX_LEDGER_ENTRIES && x.every(isStr);
  const instructions = strings(l.instructions);
  const facts = l.facts === undefined || strings(l.facts);
  const names = l.names === undefined || strings(l.names);
  if (!files || !commands || !errors || !instructions || !facts || !names) return null;
  const f = l.folded as Record<string, unknown> | undefined;
  if (f !== undefined && !(f && typeof f === 'object' && isNat(f.files) && isNat(f.commands) && isNat(f.errors) && isNat(f.instructions)))
    return null;
  const out = v as ArtifactLedger;
  return {
    files: out.files.map((x) => ({ path: x.path, read: x.read, edited: x.edited, created: x.created, lastAction: x.lastAction })),
    commands: out.commands.map((c) => ({
      command: c.command,
      exitCode: c.exitCode,
      ...(c.runs !== undefined && c.runs > 1 ? { runs: c.runs } : {}),
    })),
    errors: out.errors.map((e) => ({ text: e.text, resolved: e.resolved })),
    instructions: [...out.instructions],
    ...(out.facts && out.facts.length > 0 ? { facts: [...out.facts] } : {}),
    ...(out.names && out.names.length > 0 ? { names: [...out.names] } : {}),
    ...(out.folded
      ? {
          folded: {
            files: out.folded.files,
            commands: out.folded.commands,
            errors: out.folded.errors,
            instructions: out.folded.instructions,
          },
        }
      : {}),
  };
}
