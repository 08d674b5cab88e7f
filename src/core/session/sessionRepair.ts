// Repairing a session that did not load cleanly. A skipped line (corrupt JSON, a wrong shape, a crash's
// partial line) can leave half of a tool exchange: a tool_use whose tool_result was on that line, or a
// result whose call was. Every request would then fail (API 400), so the orphaned half is dropped and
// the user is told. The raw file is first copied beside the session (a quarantine copy, named with a
// timestamp), because the next compaction rewrites the session file and no transcript holds the bad
// line's bytes.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { blocksOf, isToolResult, isToolUse, type ContentBlock, type Message } from '../conversation/conversation';

export interface HistoryRepair {
  messages: Message[];
  /** One sentence per change, naming the message id. */
  changes: string[];
}

/**
 * Drop the orphaned halves of tool exchanges: tool_use blocks whose tool_result is not in the next
 * message, tool_result blocks whose tool_use is not in the previous one. A message left empty is dropped.
 */
export function repairToolPairs(messages: readonly Message[]): HistoryRepair {
  const changes: string[] = [];
  // Pass 1: results without their call.
  const pass1: Message[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'user' || typeof m.content === 'string') return void pass1.push(m);
    const prev = messages[i - 1];
    const uses = new Set(
      prev && prev.role === 'assistant'
        ? blocksOf(prev)
            .filter(isToolUse)
            .map((u) => u.id)
        : [],
    );
    const kept = m.content.filter((b) => !isToolResult(b) || uses.has(b.tool_use_id));
    pushRepaired(pass1, m, kept, 'tool_result', changes);
  });
  // Pass 2: calls without their result.
  const out: Message[] = [];
  pass1.forEach((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string') return void out.push(m);
    const next = pass1[i + 1];
    const results = new Set(
      next && next.role === 'user'
        ? blocksOf(next)
            .filter(isToolResult)
            .map((r) => r.tool_use_id)
        : [],
    );
    const kept = m.content.filter((b) => !isToolUse(b) || results.has(b.id));
    pushRepaired(out, m, kept, 'tool_use', changes);
  });
  return { messages: out, changes };
}

function pushRepaired(out: Message[], m: Message, kept: ContentBlock[], what: string, changes: string[]): void {
  const content = m.content as ContentBlock[];
  if (kept.length === content.length) {
    out.push(m);
    return;
  }
  const n = content.length - kept.length;
  if (kept.length === 0) {
    changes.push(`message ${m.id} (${m.role}) was dropped: its ${n} ${what} block(s) had lost the other half of their tool exchange`);
    return;
  }
  changes.push(`message ${m.id} (${m.role}) lost ${n} ${what} block(s) whose other half was lost`);
  out.push({ ...m, content: kept });
}

/**
 * Copy the raw session file beside it as `<name>.quarantine-<epoch-ms>-<hash>` unless a copy of the
 * same corrupt lines exists already (a session reloaded twice is quarantined once). Returns the copy's
 * path. Throws if the copy cannot be made.
 */
export function quarantineFile(
  file: string,
  corruptLines: readonly string[],
  now = Date.now(),
  copy: (from: string, to: string) => void,
): string {
  const dir = dirname(file);
  const hash = createHash('sha256').update(corruptLines.join('\n')).digest('hex').slice(0, 12);
  const prefix = `${basename(file)}.quarantine-`;
  const existing = readdirSync(dir).find((n) => n.startsWith(prefix) && n.endsWith(`-${hash}`));
  if (existing) return join(dir, existing);
  const target = join(dir, `${prefix}${now}-${hash}`);
  copy(file, target);
  return target;
}
