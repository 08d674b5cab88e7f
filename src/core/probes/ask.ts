// The online check's two deterministic ends: the questions as the last user turn of one request (the
// compacted context before it), and the model's JSON answers scored: an exact probe is correct when
// an expected answer is in the answer (normalised), else wrong; any other probe is correct when an
// expected answer is there, else uncertain. Missing answers are unanswered.
import { holds, normalise } from './normalize';
import { probeRoot } from './score';
import type { Probe, ProbeAnswer } from './types';

/** The last user turn of an online check: the probe questions by id, answers asked as JSON. */
export function probeQuestionsPrompt(probes: readonly Probe[]): string {
  const lines = [
    'Answer the following questions about this conversation so far, using only what the context above says.',
    'Answer each briefly with the exact text (file path, command, error line, name, number) where it is exact.',
    'When the context does not say, answer "unknown". Do not guess.',
    'Reply with JSON only, in this shape: {"answers":[{"id":"p-…","answer":"…"}]}',
    '',
    ...probes.map((p) => `${p.id}: ${p.question}`),
  ];
  return lines.join('\n');
}

function answersArray(text: string): unknown[] | null {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) candidates.push(m[1]);
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  const firstBracket = text.indexOf('[');
  const lastBracket = text.lastIndexOf(']');
  if (firstBracket >= 0 && lastBracket > firstBracket) candidates.push(text.slice(firstBracket, lastBracket + 1));
  for (const c of candidates) {
    try {
      const parsed: unknown = JSON.parse(c.trim());
      if (Array.isArray(parsed)) return parsed;
      if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { answers?: unknown }).answers))
        return (parsed as { answers: unknown[] }).answers;
    } catch {
      // Not this one: try the next candidate.
    }
  }
  return null;
}

/** The model's answers, scored; tolerant of code fences and prose around the JSON. */
export function parseProbeAnswers(text: string, probes: readonly Probe[]): ProbeAnswer[] {
  const given = new Map<string, string>();
  for (const item of answersArray(text) ?? []) {
    if (!item || typeof item !== 'object') continue;
    const { id, answer } = item as { id?: unknown; answer?: unknown };
    if (typeof id !== 'string' || given.has(id)) continue;
    given.set(id, typeof answer === 'string' ? answer : answer === undefined || answer === null ? '' : JSON.stringify(answer));
  }
  const root = probeRoot(probes);
  return probes.map((p) => {
    const answer = given.get(p.id);
    if (answer === undefined || answer.trim() === '') return { id: p.id, answer: answer ?? '', verdict: 'unanswered' };
    const right = p.expected.some((e) => holds(normalise(answer), e, root));
    return { id: p.id, answer, verdict: right ? 'correct' : p.exact ? 'wrong' : 'uncertain' };
  });
}
