// Facts from what the session wrote: figures (a number with its unit) and names (identifiers, test
// names, branches, packages) in tool results and assistant text, and the user's constraints and
// choices in genuine prompts. Each is asked as a cloze: the sentence it was stated in, the fact
// replaced by a blank, so the question never contains the answer.
import { textOf, toolResultText, type Message, type ToolResultBlock } from '../conversation/conversation';
import { MessageMemo } from '../base/sharded';
import { assistantText, genuinePrompts } from './facts';
import { runSteps, type Steps } from '../base/slicedWork';
import { STEP_ITEMS } from '../ledger/ledgerExtract';
import { clip, normalise, oneLine } from './normalize';

export interface TextFact {
  /** The fact as stated. */
  value: string;
  /** The sentence with the fact blanked out (`___`); '' for a decision that is its whole prompt. */
  cloze: string;
  /** 'figure' | 'name' | 'decision'. */
  kind: 'figure' | 'name' | 'decision';
  sources: string[];
  at: number;
  /** How many archived messages state it. */
  mentions: number;
  /** Where it is stated: the agent's own text, or only tool results (and prompts, for decisions). */
  origin: 'assistant' | 'tool' | 'user';
}

const UNITS = [
  'ms|milliseconds?|s|sec|seconds?|minutes?|min|h|hours?|KB|kB|MB|GB|TB|KiB|MiB|GiB|%|px|USD|\\$',
  'tokens?|lines?|bytes?|files?|tests?|chars?|characters?|calls?|requests?|rows?|items?|errors?|warnings?',
].join('|');
const FIGURE_RE = new RegExp(`(?<![\\w.])(\\$?\\d[\\d,]*(?:\\.\\d+)?\\s?(?:${UNITS}))(?![\\w])`, 'g');
/** Terminal colour codes (ESC [ … letter). */
const ANSI_ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');
const BACKTICK_RE = /`([^`\n]{3,60})`/g;
// A branch name is quoted, or has a slash, dash, underscore or digit, or is a usual trunk name.
const BRANCH_RE = /\bbranch\s+(?:[`'"]([A-Za-z0-9][\w./-]{1,60})[`'"]|((?:main|master|develop|trunk)\b|[A-Za-z0-9][\w.]*[/_\d-][\w./-]*))/g;
const PACKAGE_RE = /(?<![\w/])(@[a-z0-9-]+\/[a-z0-9._-]+)\b/g;
const TEST_NAME_RE = /(?:✓|✗|✘|×|PASS|FAIL|not ok|ok \d+ -|FAILED)\s+([^\n]{6,80})/g;

/** Sentences of a text (split at line ends and sentence punctuation), one line each. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`"'(])/)
    .map(oneLine)
    .filter((s) => s.length >= 12);
}

function blank(sentence: string, value: string): string | null {
  const i = sentence.indexOf(value);
  if (i < 0) return null;
  const from = Math.max(0, i - 90);
  const to = Math.min(sentence.length, i + value.length + 60);
  let cloze = sentence.slice(from, to).split(value).join('___');
  cloze = `${from > 0 ? '…' : ''}${cloze}${to < sentence.length ? '…' : ''}`;
  // A blank with nothing around it asks nothing.
  if (cloze.replace(/___|…/g, '').replace(/[^a-zA-Z]/g, '').length < 12) return null;
  return cloze;
}

function isIdentifierLike(v: string): boolean {
  if (/\s/.test(v) && !/^[\w.-]+(\s[\w.-]+){0,3}$/.test(v)) return false;
  if (/^\d+$/.test(v)) return false;
  return /[A-Za-z]/.test(v) && /[A-Z_./:-]|[a-z][A-Z]/.test(v.slice(1));
}

/** The text of a message that states facts: tool results and the assistant's own text. */
function factText(m: Message): string {
  return (
    rawFactText(m)
      .replace(ANSI_ESCAPE, '')
      .split('\n')
      // Accessibility snapshots and numbered file listings state no fact of the session's own.
      .filter((l) => !/\[ref=e\d+\]/.test(l) && !/^\s*\d+(→|\t)/.test(l))
      .join('\n')
  );
}

function rawFactText(m: Message): string {
  if (m.synthetic) return '';
  if (m.role === 'assistant') return assistantText(m);
  if (typeof m.content === 'string') return '';
  return m.content
    .filter((b) => b.type === 'tool_result')
    .map((b) => toolResultText(b as ToolResultBlock))
    .join('\n');
}

/** One fact a sentence states, before the session-wide merge: the value, its key and the sentence it is in. */
interface Pick {
  value: string;
  kind: TextFact['kind'];
  key: string;
  sentence: string;
}

type Picker = (text: string, role: Message['role']) => Array<[string, TextFact['kind']]>;

/** Messages whose text is read between two yields (a tool result may hold tens of thousands of characters). */
const TEXT_STEP_MESSAGES = 16;
/** Characters read for picks between two yields (16 tool results of 40,000 characters held the host 50 ms). */
const TEXT_STEP_CHARS = 100_000;

/**
 * Each message's picks, remembered per message object and picker: a followed session asks again about the
 * same archived messages after every append (the inspector scores each recorded compaction's probes),
 * and the sentence split and the regular expressions over tool output are most of the work. Sharded
 * (MessageMemo): a memo of a whole huge session grows without one long rehash.
 */
const picksMemo = new WeakMap<Picker, MessageMemo<readonly Pick[]>>();

/** `read.chars`: the characters read for it when the message's picks were not remembered yet. */
function picksOf(m: Message, pick: Picker, read: { chars: number }): readonly Pick[] {
  let memo = picksMemo.get(pick);
  if (!memo) {
    memo = new MessageMemo();
    picksMemo.set(pick, memo);
  }
  const known = memo.get(m);
  if (known) return known;
  const out: Pick[] = [];
  const text = factText(m);
  read.chars += text.length;
  if (text !== '') {
    for (const s of sentences(text.length > 40_000 ? text.slice(0, 40_000) : text)) {
      for (const [value, kind] of pick(s, m.role)) out.push({ value, kind, key: normalise(value), sentence: s });
    }
  }
  memo.set(m, out);
  return out;
}

/** The facts `pick` finds in `messages`, yielding every TEXT_STEP_MESSAGES messages or TEXT_STEP_CHARS characters read. */
function* collectSteps(messages: readonly Message[], pick: Picker): Steps<TextFact[]> {
  const facts = new Map<string, TextFact>();
  const read = { chars: 0 };
  for (let at = 0; at < messages.length; at++) {
    if ((at + 1) % TEXT_STEP_MESSAGES === 0 || read.chars >= TEXT_STEP_CHARS) {
      read.chars = 0;
      yield;
    }
    const m = messages[at];
    for (const { value, kind, key, sentence } of picksOf(m, pick, read)) {
      const prev = facts.get(key);
      if (prev) {
        if (!prev.sources.includes(m.id)) {
          prev.mentions++;
          if (m.role === 'assistant') prev.origin = 'assistant';
          if (prev.sources.length < 3) prev.sources.push(m.id);
        }
        continue;
      }
      const cloze = blank(clip(sentence, 600), value);
      if (cloze)
        facts.set(key, { value, cloze, kind, sources: [m.id], at, mentions: 1, origin: m.role === 'assistant' ? 'assistant' : 'tool' });
    }
  }
  return [...facts.values()];
}

/** Figures and names the session established (in tool results and assistant text). */
const recallPicker: Picker = (s, role) => {
  const out: Array<[string, TextFact['kind']]> = [];
  for (const m of s.matchAll(FIGURE_RE)) if (!/^\d{1,2}\s?s$/.test(m[1]) && !/^[01]\s?\w+$/.test(m[1])) out.push([m[1], 'figure']);
  if (role === 'assistant') for (const m of s.matchAll(BACKTICK_RE)) if (isIdentifierLike(m[1])) out.push([m[1], 'name']);
  for (const m of s.matchAll(BRANCH_RE)) out.push([(m[1] ?? m[2]).replace(/[.,;:]$/, ''), 'name']);
  if (role === 'assistant') for (const m of s.matchAll(PACKAGE_RE)) out.push([m[1], 'name']);
  for (const m of s.matchAll(TEST_NAME_RE)) out.push([oneLine(m[1]).replace(/\s*\(\d+(\.\d+)?\s?m?s\)$/, ''), 'name']);
  return out;
};

/** Figures and names the session established (in tool results and assistant text). */
export function recallFacts(messages: readonly Message[]): TextFact[] {
  return runSteps(recallFactsSteps(messages));
}

/** recallFacts, yielding every STEP_ITEMS messages. */
export function recallFactsSteps(messages: readonly Message[]): Steps<TextFact[]> {
  return collectSteps(messages, recallPicker);
}

const DECISION_RE =
  /\b(don'?t|do not|never|always|must(?: not)?|mustn'?t|should(?: not|n'?t)?|shall not|instead of|rather than|avoid|make sure|only use|we (?:also )?use|use|prefer|keep|no need to|stop)\b/i;

/** The clause a constraint or choice is stated in: from its trigger word, up to ten words or the clause's end. */
function decisionClause(sentence: string): string | null {
  const m = DECISION_RE.exec(sentence);
  if (!m) return null;
  // "use" alone is only a choice when it opens the sentence or follows a subject ("we use", "please use").
  if (/^use$/i.test(m[1]) && !/(^|\b(?:please|we|you|just|and|but|then|to)\s+)$/i.test(sentence.slice(0, m.index))) return null;
  let start = m.index;
  // "use Y instead of Z": the choice starts at "use".
  if (/^(instead of|rather than)$/i.test(m[1])) {
    const before = sentence.slice(0, m.index);
    const use = /\b(use|prefer|go with|switch to|keep)\b[^,;]*$/i.exec(before);
    if (use) start = use.index;
  }
  // A condition or a question states no decision ("if we use X …", "should we …?").
  if (/\b(if|when|whether|unless)\b[^,;]*$/i.test(sentence.slice(0, start)) || /\?\s*$/.test(sentence)) return null;
  const rest = sentence
    .slice(start)
    .split(/[,;:.!?()]\s|\s[-–—]\s/)[0]
    // The clause ends where a reason or another thought begins.
    .split(/\s(?:so|because|since|then|but|which|do you|that's|as)\s/i)[0];
  const words = rest
    .split(/\s+/)
    .slice(0, 10)
    .join(' ')
    .replace(/[.,;:!?]+$/, '');
  return words.split(/\s+/).length >= 3 ? words : null;
}

/** Constraints and choices the user stated in genuine prompts. */
export function decisionFacts(messages: readonly Message[]): TextFact[] {
  return runSteps(decisionFactsSteps(messages));
}

/** decisionFacts, yielding every STEP_ITEMS messages. */
export function* decisionFactsSteps(messages: readonly Message[]): Steps<TextFact[]> {
  const prompts = new Set<string>();
  for (let i = 0; i < messages.length; i += STEP_ITEMS) {
    for (const m of genuinePrompts(messages.slice(i, i + STEP_ITEMS))) prompts.add(m.id);
    yield;
  }
  const facts: TextFact[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < messages.length; at++) {
    if ((at + 1) % STEP_ITEMS === 0) yield;
    const m = messages[at];
    if (!prompts.has(m.id)) continue;
    const text = textOf(m);
    for (const s of sentences(text.length > 20_000 ? text.slice(0, 20_000) : text)) {
      // Each clause of the sentence may state its own constraint ("don't touch X; use Y instead of Z").
      for (const part of s.split(/[;]\s+|,\s+(?:and|but)\s+/)) {
        const clause = decisionClause(part);
        if (!clause || seen.has(normalise(clause))) continue;
        // A clause that is its whole sentence is blanked in the prompt around it; alone, it is asked plainly.
        const cloze = blank(clip(s, 400), clause) ?? blank(oneLine(text).slice(0, 4000), clause) ?? '';
        seen.add(normalise(clause));
        facts.push({ value: clause, cloze, kind: 'decision', sources: [m.id], at, mentions: 1, origin: 'user' });
      }
    }
  }
  return facts;
}
