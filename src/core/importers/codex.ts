// Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and the older un-enveloped
// rollout lines): messages, tool calls and their outputs; reasoning, developer/system messages and the
// harness's context injections are dropped; a `compacted` line becomes a synthetic summary message.
import type { ContentBlock, TextBlock, ToolResultBlock, ToolUseBlock } from '../conversation';
import { Assembler } from './assembler';
import { CODEX_ENVELOPE_TYPES } from './detect';
import { describe, failAt, isObject, timestampMs, type Fail, type Json, type JsonLine } from './json';
import type { ImportResult } from './types';

const CODEX_INJECTION_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions for',
  '<INSTRUCTIONS>',
  '<recommended_plugins>',
];

/** Response items that carry nothing to import: skipped without a warning. */
const CODEX_SILENT_ITEMS = new Set(['reasoning', 'web_search_call', 'ghost_snapshot', 'compaction', 'compaction_summary']);

export function importCodexRollout(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const assembler = new Assembler(file, warnings);
  const unknown = new Map<string, { count: number; line: number }>();
  const noteUnknown = (what: string, line: number): void => {
    const seen = unknown.get(what);
    if (seen) seen.count++;
    else unknown.set(what, { count: 1, line });
  };

  for (const { line, value } of lines) {
    const fail = failAt(file, line);
    const createdAt = timestampMs(value.timestamp);
    if (value.record_type !== undefined) continue; // legacy state marker
    const type = value.type;
    if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type)) {
      if (type === 'session_meta' || type === 'event_msg' || type === 'turn_context') continue;
      if (!isObject(value.payload)) fail('payload', `expected an object, got ${describe(value.payload)}`);
      const payload = value.payload as Json;
      if (type === 'compacted') {
        if (typeof payload.message !== 'string') fail('payload.message', `expected the summary text, got ${describe(payload.message)}`);
        const summary = payload.message as string;
        if (summary.trim() !== '') assembler.prompt(summary, line, `codex_${line}`, createdAt, 'summary');
        continue;
      }
      codexItem(payload, 'payload', line, createdAt, assembler, fail, noteUnknown, warnings, file);
    } else if (typeof type === 'string' && !('payload' in value)) {
      codexItem(value, '', line, createdAt, assembler, fail, noteUnknown, warnings, file); // legacy bare item
    } else if (type === undefined && typeof value.id === 'string' && typeof value.timestamp === 'string') {
      continue; // legacy session meta line
    } else {
      noteUnknown(`line type ${describe(type)}`, line);
    }
  }
  for (const [what, { count, line }] of unknown) {
    warnings.push(`${file}:${line}: skipped ${count} line(s) of unknown ${what}`);
  }
  const messages = assembler.finish();
  if (messages.length === 0) warnings.push(`${file}: no conversation messages found`);
  return { format: 'codex-rollout-jsonl', messages, compactions: [], warnings };
}

function codexItem(
  item: Json,
  prefix: string,
  line: number,
  createdAt: number | undefined,
  assembler: Assembler,
  fail: Fail,
  noteUnknown: (what: string, line: number) => void,
  warnings: string[],
  file: string,
): void {
  const at = (key: string): string => (prefix ? `${prefix}.${key}` : key);
  const id = `codex_${line}`;
  const type = item.type;
  if (typeof type !== 'string') return fail(at('type'), `expected an item type, got ${describe(type)}`);
  switch (type) {
    case 'message': {
      const role = item.role;
      if (typeof role !== 'string') return fail(at('role'), `expected a role, got ${describe(role)}`);
      if (!Array.isArray(item.content)) return fail(at('content'), `expected an array of content items, got ${describe(item.content)}`);
      if (role === 'developer' || role === 'system') return;
      if (role !== 'user' && role !== 'assistant') {
        noteUnknown(`message role ${describe(role)}`, line);
        return;
      }
      const blocks: ContentBlock[] = [];
      item.content.forEach((c: unknown, i: number) => {
        const field = at(`content[${i}]`);
        if (!isObject(c)) return fail(field, `expected a content item object, got ${describe(c)}`);
        if (c.type === 'input_text' || c.type === 'output_text') {
          if (typeof c.text !== 'string') return fail(`${field}.text`, `expected a string, got ${describe(c.text)}`);
          if (role === 'user' && isCodexInjection(c.text)) return;
          if (c.text.trim() !== '') blocks.push({ type: 'text', text: c.text });
        } else if (c.type === 'input_image') {
          if (typeof c.image_url !== 'string') return fail(`${field}.image_url`, `expected a string, got ${describe(c.image_url)}`);
          blocks.push(imageBlock(c.image_url));
        } else {
          noteUnknown(`content item type ${describe(c.type)}`, line);
        }
      });
      if (blocks.length === 0) return;
      if (role === 'assistant') assembler.assistant(blocks, line, id, createdAt);
      else assembler.prompt(blocks.length === 1 && blocks[0].type === 'text' ? (blocks[0] as TextBlock).text : blocks, line, id, createdAt);
      return;
    }
    case 'function_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      const input = codexArguments(item.arguments, at('arguments'), fail, (why) =>
        warnings.push(`${file}:${line}: arguments of tool call ${callId} (${name}) ${why}; kept as {"raw": …}`),
      );
      assembler.assistant([toolUse(callId, name, input)], line, id, createdAt);
      return;
    }
    case 'custom_tool_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      if (typeof item.input !== 'string') return fail(at('input'), `expected a string, got ${describe(item.input)}`);
      assembler.assistant([toolUse(callId, name, { input: item.input })], line, id, createdAt);
      return;
    }
    case 'local_shell_call': {
      const callId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : item.id;
      if (typeof callId !== 'string' || callId === '')
        return fail(at('call_id'), `expected a non-empty string, got ${describe(item.call_id)}`);
      const action = isObject(item.action) ? item.action : {};
      assembler.assistant([toolUse(callId, 'local_shell', action)], line, id, createdAt);
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      assembler.results([codexResult(callId, item.output, at('output'), fail)], [], line, id, createdAt);
      return;
    }
    default:
      if (!CODEX_SILENT_ITEMS.has(type)) noteUnknown(`response item type ${describe(type)}`, line);
  }
}

function isCodexInjection(text: string): boolean {
  const start = text.trimStart();
  return CODEX_INJECTION_PREFIXES.some((p) => start.startsWith(p));
}

function requireCodexString(item: Json, key: string, at: (key: string) => string, fail: Fail): string {
  const value = item[key];
  if (typeof value !== 'string' || value === '') {
    const missing = `missing: a ${String(item.type)} item needs its ${key}`;
    return fail(at(key), value === undefined ? missing : `expected a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function toolUse(id: string, name: string, input: unknown): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Codex sends arguments as a JSON string; the Messages API wants an object. */
function codexArguments(value: unknown, field: string, fail: Fail, warn: (why: string) => void): Json {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return fail(field, `expected a JSON string, got ${describe(value)}`);
  if (value.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    warn('are not valid JSON');
    return { raw: value };
  }
  if (isObject(parsed)) return parsed;
  warn('are not a JSON object');
  return { raw: value };
}

/**
 * A function_call_output's `output`: a string (the usual form), an array of input_text/input_image items
 * (tools returning structured content), or, in older rollouts, `{content, success}`.
 */
function codexResult(callId: string, output: unknown, field: string, fail: Fail): ToolResultBlock {
  const result: ToolResultBlock = { type: 'tool_result', tool_use_id: callId };
  if (typeof output === 'string') {
    if (output !== '') result.content = output;
  } else if (Array.isArray(output)) {
    const blocks: Array<TextBlock | ContentBlock> = [];
    output.forEach((c: unknown, i: number) => {
      if (!isObject(c)) return fail(`${field}[${i}]`, `expected a content item object, got ${describe(c)}`);
      if ((c.type === 'input_text' || c.type === 'output_text') && typeof c.text === 'string') blocks.push({ type: 'text', text: c.text });
      else if (c.type === 'input_image' && typeof c.image_url === 'string') blocks.push(imageBlock(c.image_url));
      else return fail(`${field}[${i}]`, `expected an input_text or input_image item, got type ${describe(c.type)}`);
    });
    if (blocks.length > 0) result.content = blocks as ToolResultBlock['content'];
  } else if (isObject(output) && typeof output.content === 'string') {
    if (output.content !== '') result.content = output.content;
    if (output.success === false) result.is_error = true;
  } else {
    return fail(field, `expected a string or an array of content items, got ${describe(output)}`);
  }
  return result;
}

function imageBlock(url: string): ContentBlock {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}
