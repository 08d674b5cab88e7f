// Probe generation: from the messages a compaction archives (or a plan would archive), the questions
// whose answers the work needs after it, of four kinds (artifact, recall, decision, continuation),
// each with its expected answers and source messages. Pure and deterministic: same input, same
// probes (ids are hashes of question and sources). Bounded (default 30) and spread over the kinds;
// within a kind, facts the later conversation refers to again come first.
import { textOf, type Message } from '../conversation/conversation';
import {
  assistantText,
  commandFactsSteps,
  errorFactsSteps,
  fileFactsSteps,
  lastGenuinePrompt,
  type CommandFact,
  type ErrorFact,
  type FileFact,
} from './facts';
import { clip, commonFolder, holds, normalise, oneLine, shortHash } from './normalize';
import { decisionFactsSteps, recallFactsSteps, type TextFact } from './textFacts';
import { runSteps, type Steps } from '../base/slicedWork';
import { pairCallsSteps, STEP_ITEMS } from '../ledger/ledgerExtract';
import { PROBE_KINDS, type Probe, type ProbeInput, type ProbeKind, type ProbeOptions } from './types';

export const DEFAULT_MAX_PROBES = 30;

/** Share of the budget each kind gets first (what a kind cannot fill goes to the others). */
const SHARE: Record<ProbeKind, number> = { artifact: 0.35, recall: 0.35, decision: 0.15, continuation: 0.15 };

/** The later conversation, normalised, and the folder the session's paths share. */
interface Later {
  text: string;
  root: string;
  /** Characters of `text` searched since the candidate loops last yielded (makeProbe adds, due() resets). */
  scanned: number;
}

/**
 * Characters of the later conversation searched between two yields: a later conversation of 800,000
 * characters made each probe's search ~0.2 ms, so a few dozen candidates held the host 15 ms in one step.
 */
const LATER_SCAN_CHARS = 2_000_000;
/** Characters of the later conversation normalised between two yields. */
const LATER_STEP_CHARS = 200_000;

/** Whether a candidate loop yields before item `i`: every STEP_ITEMS items, or once its searches read LATER_SCAN_CHARS. */
function due(i: number, later: Later): boolean {
  if ((i + 1) % STEP_ITEMS !== 0 && later.scanned < LATER_SCAN_CHARS) return false;
  later.scanned = 0;
  return true;
}

interface Candidate {
  probe: Probe;
  /** Higher first: referred to later, mentioned often, recent. */
  rank: number;
}

function makeProbe(kind: ProbeKind, question: string, expected: string[], exact: boolean, sources: string[], later: Later): Probe | null {
  const answers = [...new Set(expected.map((e) => e.trim()).filter((e) => normalise(e).length >= 2))];
  if (answers.length === 0 || sources.length === 0) return null;
  const q = normalise(question);
  // A question that states its answer asks nothing.
  if (answers.some((a) => q.includes(normalise(a)))) return null;
  later.scanned += later.text.length * answers.length;
  const referencedLater = later.text !== '' && answers.some((a) => holds(later.text, a, later.root));
  return {
    id: `p-${kind}-${shortHash(`${question}\u0000${sources.join(',')}`)}`,
    kind,
    question,
    expected: answers,
    exact,
    sources,
    referencedLater,
  };
}

/**
 * Rank: the fact's tier (how surely it is the session's own: stated by the agent, an error, a change)
 * first, then whether the later conversation refers to it again, then its weight (mentions), then recency.
 */
function candidate(probe: Probe | null, weight: number, at: number, tier = 1): Candidate[] {
  return probe
    ? [{ probe, rank: tier * 1e13 + (probe.referencedLater ? 1e12 : 0) + Math.min(weight, 99) * 1e9 + Math.min(at, 1e9 - 1) }]
    : [];
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

const ACTION_VERB = { created: 'create', edited: 'edit', deleted: 'delete' } as const;

/** The facts of the archived messages the candidates are made from (each pass once). */
interface Facts {
  files: FileFact[];
  commands: CommandFact[];
  errors: ErrorFact[];
  recall: TextFact[];
  decisions: TextFact[];
}

function* artifactCandidates({ files, commands }: Facts, later: Later): Steps<Candidate[]> {
  const out: Candidate[] = [];
  const counts = new Map<string, number>();
  for (const f of files) counts.set(f.action, (counts.get(f.action) ?? 0) + 1);
  const count = (action: string) => counts.get(action) ?? 0;
  const seen = new Map<string, number>();
  for (let i = 0; i < files.length; i++) {
    if (due(i, later)) yield;
    const f = files[i];
    const k = (seen.get(f.action) ?? 0) + 1;
    seen.set(f.action, k);
    // Without a line the change wrote, the file is told apart by its place among the others.
    const which = f.hint
      ? ` (the change that wrote "${f.hint}")`
      : count(f.action) > 1
        ? ` (the ${ordinal(k)} of the ${count(f.action)} files it ${f.action}, in the order last changed)`
        : '';
    const question = `Which file did the session ${ACTION_VERB[f.action]}${which}? Give its path.`;
    out.push(...candidate(makeProbe('artifact', question, [f.path], true, f.sources, later), f.action === 'edited' ? 2 : 3, f.at));
  }
  for (const c of yield* commandCandidates(commands, later)) out.push(c);
  return out;
}

const PURPOSE_TEXT: Partial<Record<CommandFact['purpose'], string>> = {
  test: 'run the tests',
  build: 'build',
  typecheck: 'typecheck',
  lint: 'lint or format',
  install: 'install dependencies',
};

/** The expected forms of a command: its head, and the whole line when it is short and not clipped. */
function commandAnswers(c: CommandFact): string[] {
  return c.command.length <= 120 && !c.command.endsWith('…') ? [c.head, c.command] : [c.head];
}

/** The last command of each purpose (test, build, …) and of each verb that changed something (git commit, gh issue close, …). */
function* commandCandidates(commands: readonly CommandFact[], later: Later): Steps<Candidate[]> {
  const out: Candidate[] = [];
  const last = new Map<string, { c: CommandFact; count: number }>();
  for (let i = 0; i < commands.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0) yield;
    const c = commands[i];
    if (c.purpose === 'inspect') continue;
    const key = c.purpose === 'change' ? `change ${c.verb}` : c.purpose;
    last.set(key, { c, count: (last.get(key)?.count ?? 0) + 1 });
  }
  let k = 0;
  for (const { c, count } of last.values()) {
    if (due(k++, later)) yield;
    const purpose = PURPOSE_TEXT[c.purpose];
    const ended = c.exitCode === null ? '' : ', and what exit code did it end with';
    if (purpose) {
      const question = `Which command did the session last run to ${purpose}${ended}?`;
      out.push(...candidate(makeProbe('artifact', question, commandAnswers(c), true, c.sources, later), 4, c.at));
      continue;
    }
    if (c.title) {
      const question = `What title or message did the session give the last time it ran \`${c.verb}\`?`;
      out.push(...candidate(makeProbe('artifact', question, [c.title], true, c.sources, later), 3, c.at));
    } else if (c.head !== c.verb) {
      const times = count > 1 ? ` (${count} times; the last one)` : '';
      const question = `The session ran \`${c.verb} …\`${times}. What exactly did it run (its target: branch, issue, file or id)?`;
      out.push(...candidate(makeProbe('artifact', question, commandAnswers(c), true, c.sources, later), 2, c.at));
    }
  }
  return out;
}

function* recallCandidates({ errors, recall }: Facts, later: Later): Steps<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < errors.length; i++) {
    if (due(i, later)) yield;
    const e = errors[i];
    const question = `What error did \`${clip(e.origin, 100)}\` report? Quote its error line.`;
    out.push(...candidate(makeProbe('recall', question, [e.line], true, e.sources, later), 3, e.at, 2));
  }
  for (let i = 0; i < recall.length; i++) {
    if (due(i, later)) yield;
    const f = recall[i];
    const what = f.kind === 'figure' ? 'figure' : 'name';
    const question = `The session stated: "${f.cloze}". What ${what} goes in the blank?`;
    const tier = f.origin === 'assistant' ? 2 : f.kind === 'name' ? 1 : 0;
    out.push(...candidate(makeProbe('recall', question, [f.value], true, f.sources, later), Math.min(f.mentions, 5), f.at, tier));
  }
  return out;
}

function* decisionCandidates({ decisions }: Facts, later: Later): Steps<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < decisions.length; i++) {
    if (due(i, later)) yield;
    const d = decisions[i];
    const made = candidate(
      makeProbe(
        'decision',
        d.cloze === ''
          ? 'What constraint or choice did the user state in a short prompt of its own?'
          : `The user said: "${d.cloze}". What constraint or choice goes in the blank?`,
        [d.value],
        false,
        d.sources,
        later,
      ),
      1,
      d.at,
    );
    for (const c of made) out.push(c);
  }
  return out;
}

/** The prompt's opening words, whole words up to `max` characters: the open task as the user put it. */
function openingWords(text: string, max: number): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** The exact terms of a sentence (backticked code, paths, identifiers with digits, dots, slashes or inner capitals, numbers of 3+ digits). */
export function keyTerms(sentence: string): string[] {
  const terms = new Set<string>();
  for (const m of sentence.matchAll(/`([^`]{2,80})`/g)) terms.add(m[1]);
  const plain = sentence.replace(/`[^`]*`/g, ' ');
  const re =
    /(?<![\w/.-])((?:[\w.-]*[/][\w./-]+)|(?:[A-Za-z_][\w-]*(?:\.[\w-]+)+)|(?:[a-z]+[A-Z]\w*)|(?:[A-Za-z]+[_-][\w-]+)|(?:\d{3,}))(?![\w/])/g;
  for (const m of plain.matchAll(re)) {
    const t = m[1].replace(/[.,;:]+$/, '');
    if (t.length >= 3) terms.add(t);
  }
  return [...terms].slice(0, 4);
}

const NEXT_RE = /\b(next|now I'?ll|let me|let's|I'?ll|I will|I'm going to|going to|then I|remaining|still need)\b/i;

function continuationCandidates(archived: readonly Message[], { files, commands }: Facts, later: Later): Candidate[] {
  const out: Candidate[] = [];
  const last = lastGenuinePrompt(archived);
  if (last) {
    const task = openingWords(textOf(last), 80);
    out.push(
      ...candidate(
        makeProbe(
          'continuation',
          'What was the task the user last asked for before the split (the open task)?',
          [task],
          false,
          [last.id],
          later,
        ),
        5,
        0,
      ),
    );
  }
  for (let i = archived.length - 1; i >= 0; i--) {
    const text = assistantText(archived[i]).trim();
    if (text === '') continue;
    const sentences = text
      .split(/\n+|(?<=[.!?])\s+/)
      .map(oneLine)
      .filter((s) => s.length >= 12);
    const next = [...sentences].reverse().find((s) => NEXT_RE.test(s)) ?? sentences[sentences.length - 1];
    if (next) {
      const m = NEXT_RE.exec(next);
      const step = m ? next.slice(m.index) : next;
      const terms = keyTerms(step);
      const expected = terms.length > 0 ? terms : [openingWords(step, 60)];
      const q = 'What did the agent say it would do next at the split?';
      out.push(...candidate(makeProbe('continuation', q, expected, false, [archived[i].id], later), 4, 0));
    }
    break;
  }
  const lastFile = files[files.length - 1];
  if (lastFile) {
    const q = 'Which file was the agent changing most recently before the split?';
    out.push(...candidate(makeProbe('continuation', q, [lastFile.path], true, lastFile.sources, later), 3, 0));
  }
  const lastCommand = commands[commands.length - 1];
  if (lastCommand) {
    const q = 'What was the last command the agent ran before the split?';
    out.push(...candidate(makeProbe('continuation', q, commandAnswers(lastCommand), true, lastCommand.sources, later), 2, 0));
  }
  return out;
}

/** Up to `max` candidates spread over the kinds: each kind its share first, what a kind cannot fill to the others. */
function select(byKind: Record<ProbeKind, Candidate[]>, max: number): Probe[] {
  const sorted = {} as Record<ProbeKind, Candidate[]>;
  for (const k of PROBE_KINDS) {
    const seen = new Set<string>();
    sorted[k] = [...byKind[k]]
      .sort((a, b) => b.rank - a.rank || (a.probe.id < b.probe.id ? -1 : a.probe.id > b.probe.id ? 1 : 0))
      .filter((c) => !seen.has(c.probe.id) && seen.add(c.probe.id) !== undefined);
  }
  const take: Record<ProbeKind, number> = { artifact: 0, recall: 0, decision: 0, continuation: 0 };
  let left = max;
  // Each kind present when the input has any.
  for (const k of PROBE_KINDS) {
    if (left > 0 && sorted[k].length > 0) {
      take[k] = 1;
      left--;
    }
  }
  for (const k of PROBE_KINDS) {
    const more = Math.min(sorted[k].length - take[k], Math.max(0, Math.round(max * SHARE[k]) - take[k]), left);
    take[k] += more;
    left -= more;
  }
  for (const k of PROBE_KINDS) {
    const more = Math.min(sorted[k].length - take[k], left);
    take[k] += more;
    left -= more;
  }
  return PROBE_KINDS.flatMap((k) => sorted[k].slice(0, take[k]).map((c) => c.probe));
}

/** The probes of what `input.archived` holds, at most `options.max` (default 30). */
export function generateProbes(input: ProbeInput, options: ProbeOptions = {}): Probe[] {
  return runSteps(generateProbesSteps(input, options));
}

/** generateProbes, yielding every STEP_ITEMS messages, calls or candidates (each fact pass once). */
export function* generateProbesSteps(input: ProbeInput, options: ProbeOptions = {}): Steps<Probe[]> {
  const max = Math.max(0, Math.floor(options.max ?? DEFAULT_MAX_PROBES));
  const archived = input.archived.filter((m) => m.synthetic === undefined);
  const calls = yield* pairCallsSteps(archived);
  const facts: Facts = {
    files: yield* fileFactsSteps(calls),
    commands: yield* commandFactsSteps(calls),
    errors: yield* errorFactsSteps(calls),
    recall: yield* recallFactsSteps(archived),
    decisions: yield* decisionFactsSteps(archived),
  };
  const root = commonFolder(facts.files.map((f) => f.path));
  // Normalised message by message (the same text as normalising them joined: normalise collapses the
  // whitespace between them to one space), yielding every STEP_ITEMS messages or LATER_STEP_CHARS characters.
  const laterTexts: string[] = [];
  const laterMessages = input.later ?? [];
  let chars = 0;
  for (let i = 0; i < laterMessages.length; i++) {
    if ((i + 1) % STEP_ITEMS === 0 || chars >= LATER_STEP_CHARS) {
      chars = 0;
      yield;
    }
    if (laterMessages[i].synthetic !== undefined) continue;
    const text = textOf(laterMessages[i]);
    chars += text.length;
    const normalised = normalise(text);
    if (normalised !== '') laterTexts.push(normalised);
  }
  const later: Later = { text: laterTexts.join(' '), root, scanned: 0 };
  return select(
    {
      artifact: yield* artifactCandidates(facts, later),
      recall: yield* recallCandidates(facts, later),
      decision: yield* decisionCandidates(facts, later),
      continuation: continuationCandidates(archived, facts, later),
    },
    max,
  );
}
