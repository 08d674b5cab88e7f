// Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl): the main chain's user and
// assistant lines, the current branch only when the parentUuid links allow it, compaction summaries as
// synthetic summary messages in place.
import { isToolResult, type ContentBlock, type ToolResultBlock } from '../conversation';
import { checkContent } from '../messageShape';
import { Assembler, nonBlank } from './assembler';
import { describe, failAt, isObject, timestampMs, type Json, type JsonLine } from './json';
import type { ImportResult } from './types';

interface ClaudeEntry {
  line: number;
  id: string;
  type: 'user' | 'assistant';
  content: string | ContentBlock[];
  messageId?: string;
  compactSummary: boolean;
  createdAt?: number;
}

export function importClaudeCode(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  // Every line with a uuid, first occurrence only (resumed sessions can repeat lines).
  const firstLine = new Map<string, number>();
  const entries: JsonLine[] = [];
  for (const l of lines) {
    const uuid = l.value.uuid;
    if (typeof uuid === 'string') {
      const first = firstLine.get(uuid);
      if (first !== undefined) {
        warnings.push(`${file}:${l.line}: repeats uuid ${uuid} of line ${first}; skipped`);
        continue;
      }
      firstLine.set(uuid, l.line);
    }
    entries.push(l);
  }

  const allMessageLines = entries.filter((l) => l.value.type === 'user' || l.value.type === 'assistant');
  // A sub-agent's own transcript (agent-*.jsonl) is all sidechain: then the sidechain is the conversation.
  const sidechain = allMessageLines.length > 0 && allMessageLines.every((l) => l.value.isSidechain === true);
  const messageLines = allMessageLines.filter((l) => (l.value.isSidechain === true) === sidechain);
  const active = activeBranch(entries, messageLines, sidechain);
  const assembler = new Assembler(file, warnings);
  const abandoned: number[] = [];
  for (const l of messageLines) {
    if (l.value.isMeta === true || l.value.isApiErrorMessage === true) continue;
    const entry = parseClaudeEntry(l, file);
    if (active && !active.has(entry.id)) {
      abandoned.push(l.line);
      continue;
    }
    if (entry.type === 'assistant') {
      const blocks = nonBlank(typeof entry.content === 'string' ? [{ type: 'text', text: entry.content }] : entry.content);
      if (blocks.length > 0) assembler.assistant(blocks, entry.line, entry.id, entry.createdAt, entry.messageId);
    } else if (entry.compactSummary) {
      assembler.prompt(entry.content, entry.line, entry.id, entry.createdAt, 'summary');
    } else if (typeof entry.content === 'string') {
      if (entry.content.trim() !== '') assembler.prompt(entry.content, entry.line, entry.id, entry.createdAt);
    } else {
      const blocks = nonBlank(entry.content);
      const results = blocks.filter(isToolResult).map(normalizeResult);
      const others = blocks.filter((b) => !isToolResult(b));
      if (results.length > 0) assembler.results(results, others, entry.line, entry.id, entry.createdAt);
      else assembler.prompt(others, entry.line, entry.id, entry.createdAt);
    }
  }
  if (abandoned.length > 0) {
    const shown = abandoned.slice(0, 10).join(', ') + (abandoned.length > 10 ? ', …' : '');
    warnings.unshift(`${file}: skipped ${abandoned.length} message line(s) on branches abandoned by a rewind or an edit (lines ${shown})`);
  }
  const messages = assembler.finish();
  if (messages.length === 0) warnings.push(`${file}: no conversation messages found`);
  return { format: 'claude-code-jsonl', messages, compactions: [], warnings };
}

function parseClaudeEntry(l: JsonLine, file: string): ClaudeEntry {
  const fail = failAt(file, l.line);
  const v = l.value;
  const type = v.type as 'user' | 'assistant';
  if (!isObject(v.message)) return fail('message', `expected the ${type} message object, got ${describe(v.message)}`);
  const message = v.message;
  if (message.role !== undefined && message.role !== type) {
    fail('message.role', `expected "${type}" (the line's type), got ${describe(message.role)}`);
  }
  const content = checkContent(message.content, 'message.content', fail);
  return {
    line: l.line,
    id: typeof v.uuid === 'string' && v.uuid !== '' ? v.uuid : `claude_${l.line}`,
    type,
    content,
    messageId: typeof message.id === 'string' ? message.id : undefined,
    compactSummary: v.isCompactSummary === true,
    createdAt: timestampMs(v.timestamp),
  };
}

function normalizeResult(block: ToolResultBlock): ToolResultBlock {
  if (block.is_error !== null) return block;
  const { is_error: _null, ...rest } = block;
  return rest as ToolResultBlock;
}

/**
 * The uuids of the message lines on the conversation's current branch, or undefined when every line is
 * to be kept (no parentUuid links, a dangling link, a cycle: the file is then read as one linear chain).
 * The branch is the ancestry of the last main-chain message line, through compact boundaries
 * (logicalParentUuid), plus the lines that ancestry cannot reach but that belong to it: the other lines of
 * its assistant responses (same message.id) and the results of its tool calls (parallel calls hang their
 * results off different lines, so the chain is a tree there).
 */
function activeBranch(entries: readonly JsonLine[], messageLines: readonly JsonLine[], sidechain: boolean): Set<string> | undefined {
  if (messageLines.length === 0 || messageLines.some((l) => typeof l.value.uuid !== 'string')) return undefined;
  const byUuid = new Map<string, JsonLine>();
  for (const l of entries) {
    if (typeof l.value.uuid === 'string' && (l.value.isSidechain === true) === sidechain) byUuid.set(l.value.uuid, l);
  }
  const kept = new Set<string>();
  let current: JsonLine | undefined = messageLines[messageLines.length - 1];
  while (current) {
    const uuid = current.value.uuid as string;
    if (kept.has(uuid)) return undefined;
    kept.add(uuid);
    let parent = current.value.parentUuid;
    if (parent === null && typeof current.value.logicalParentUuid === 'string') parent = current.value.logicalParentUuid;
    if (parent === null) {
      // A root. A compaction summary with no boundary line above it would hide the history before it.
      if (current.value.isCompactSummary === true || current.value.subtype === 'compact_boundary') return undefined;
      break;
    }
    if (typeof parent !== 'string') return undefined;
    current = byUuid.get(parent);
    if (!current) return undefined;
  }

  const responseIds = new Set<string>();
  for (const l of messageLines) {
    const id = assistantMessageId(l);
    if (id !== undefined && kept.has(l.value.uuid as string)) responseIds.add(id);
  }
  for (const l of messageLines) {
    const id = assistantMessageId(l);
    if (id !== undefined && responseIds.has(id)) kept.add(l.value.uuid as string);
  }
  const callIds = new Set<string>();
  for (const l of messageLines) {
    if (l.value.type === 'assistant' && kept.has(l.value.uuid as string)) {
      for (const b of rawBlocks(l)) if (b.type === 'tool_use' && typeof b.id === 'string') callIds.add(b.id);
    }
  }
  for (const l of messageLines) {
    if (l.value.type !== 'user') continue;
    if (rawBlocks(l).some((b) => b.type === 'tool_result' && typeof b.tool_use_id === 'string' && callIds.has(b.tool_use_id))) {
      kept.add(l.value.uuid as string);
    }
  }
  return kept;
}

function assistantMessageId(l: JsonLine): string | undefined {
  if (l.value.type !== 'assistant' || !isObject(l.value.message)) return undefined;
  return typeof l.value.message.id === 'string' ? l.value.message.id : undefined;
}

function rawBlocks(l: JsonLine): Json[] {
  const content = isObject(l.value.message) ? l.value.message.content : undefined;
  return Array.isArray(content) ? content.filter(isObject) : [];
}
