// One Codex response item (a rollout `response_item` payload, a legacy bare item, or an item of a
// compaction's replacement_history) into the Assembler: messages, tool calls and their outputs, search
// calls; user-role context injections become artefact messages (see codexContext.ts).
import type { ArtefactKind, ContentBlock, TextBlock, ToolResultBlock, ToolUseBlock } from '../conversation/conversation';
import type { Assembler } from './assembler';
import { classifyCodexUserText, isRedactedSummary, type CodexTextRole } from './codexContext';
import { checkJsonDepth } from './bounds';
import { describe, isObject, type Fail, type Json } from './json';

export interface CodexFeed {
  file: string;
  assembler: Assembler;
  warnings: string[];
  /** Artefact kind of each user-role message id written through this feed. */
  artefacts: Map<string, ArtefactKind>;
  /** Aggregated "skipped" warnings: `what` counted, reported once at its first line. */
  noteSkipped: (what: string, line: number) => void;
}

/** The text of a compaction summary the recording does not hold. */
export const REDACTED_SUMMARY_TEXT =
  '[Codex compaction summary: redacted in the recording. The model saw the summary here; its text is not available.]';

/**
 * Feeds one item at `line` (`prefix` names where it sits in the line, for errors). Returns the id of the
 * assistant message it added model output to (text or a tool call), else undefined: the recorded usage
 * that follows belongs to that message.
 */
export function feedCodexItem(
  feed: CodexFeed,
  item: Json,
  prefix: string,
  line: number,
  id: string,
  fail: Fail,
  createdAt?: number,
): string | undefined {
  const at = (key: string): string => (prefix ? `${prefix}.${key}` : key);
  const { assembler } = feed;
  const type = item.type;
  if (typeof type !== 'string') return fail(at('type'), `expected an item type, got ${describe(type)}`);
  switch (type) {
    case 'message':
      return feedMessage(feed, item, at, line, id, fail, createdAt);
    case 'function_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      const input = codexArguments(item.arguments, at('arguments'), fail, (why) =>
        feed.warnings.push(`${feed.file}:${line}: arguments of tool call ${callId} (${name}) ${why}; kept as {"raw": …}`),
      );
      return assembler.assistant([toolUse(callId, name, input)], line, id, createdAt);
    }
    case 'custom_tool_call': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const name = requireCodexString(item, 'name', at, fail);
      if (typeof item.input !== 'string') return fail(at('input'), `expected a string, got ${describe(item.input)}`);
      return assembler.assistant([toolUse(callId, name, { input: item.input })], line, id, createdAt);
    }
    case 'local_shell_call': {
      const callId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : item.id;
      if (typeof callId !== 'string' || callId === '')
        return fail(at('call_id'), `expected a non-empty string, got ${describe(item.call_id)}`);
      return assembler.assistant([toolUse(callId, 'local_shell', isObject(item.action) ? item.action : {})], line, id, createdAt);
    }
    case 'tool_search_call': {
      // A client-side search over deferred tool definitions: a call whose output lists the tools found.
      const callId = requireCodexString(item, 'call_id', at, fail);
      const input = codexArguments(item.arguments ?? {}, at('arguments'), fail, (why) =>
        feed.warnings.push(`${feed.file}:${line}: arguments of tool search ${callId} ${why}; kept as {"raw": …}`),
      );
      return assembler.assistant([toolUse(callId, 'tool_search', input)], line, id, createdAt);
    }
    case 'web_search_call':
      // A server-side tool: the rollout records the query, never the results. Shown as the model's text.
      return assembler.assistant([{ type: 'text', text: webSearchText(item.action) }], line, id, createdAt);
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      assembler.results([codexResult(callId, item.output, at('output'), fail)], [], line, id, createdAt);
      return undefined;
    }
    case 'tool_search_output': {
      const callId = requireCodexString(item, 'call_id', at, fail);
      const result: ToolResultBlock = { type: 'tool_result', tool_use_id: callId, content: JSON.stringify(item.tools ?? []) };
      if (item.status !== undefined && item.status !== 'completed') result.is_error = true;
      assembler.results([result], [], line, id, createdAt);
      return undefined;
    }
    case 'reasoning':
      feed.noteSkipped('reasoning item(s) (encrypted model reasoning: the Messages API rejects unsigned thinking)', line);
      return undefined;
    case 'ghost_snapshot':
      return undefined; // an /undo snapshot: never sent to the model
    default:
      feed.noteSkipped(`line(s) of unknown response item type ${describe(type)}`, line);
      return undefined;
  }
}

/** A message item. User text parts are split into runs: prompt, summary, or one artefact kind each. */
function feedMessage(
  feed: CodexFeed,
  item: Json,
  at: (key: string) => string,
  line: number,
  id: string,
  fail: Fail,
  createdAt?: number,
): string | undefined {
  const role = item.role;
  if (typeof role !== 'string') return fail(at('role'), `expected a role, got ${describe(role)}`);
  if (!Array.isArray(item.content)) return fail(at('content'), `expected an array of content items, got ${describe(item.content)}`);
  const known = role === 'user' || role === 'assistant' || role === 'developer' || role === 'system';
  if (!known) {
    feed.noteSkipped(`line(s) of unknown message role ${describe(role)}`, line);
    return undefined;
  }
  const runs: Array<{ role: CodexTextRole; blocks: ContentBlock[] }> = [];
  const push = (textRole: CodexTextRole, block: ContentBlock): void => {
    const last = runs.at(-1);
    if (last && last.role === textRole) last.blocks.push(block);
    else runs.push({ role: textRole, blocks: [block] });
  };
  item.content.forEach((c: unknown, i: number) => {
    const field = at(`content[${i}]`);
    if (!isObject(c)) return fail(field, `expected a content item object, got ${describe(c)}`);
    if (c.type === 'input_text' || c.type === 'output_text') {
      if (typeof c.text !== 'string') return fail(`${field}.text`, `expected a string, got ${describe(c.text)}`);
      if (c.text.trim() === '') return;
      const textRole: CodexTextRole = role === 'user' ? classifyCodexUserText(c.text) : role === 'assistant' ? 'prompt' : 'meta';
      push(textRole, { type: 'text', text: c.text });
    } else if (c.type === 'input_image') {
      if (typeof c.image_url !== 'string') return fail(`${field}.image_url`, `expected a string, got ${describe(c.image_url)}`);
      push(role === 'user' ? 'prompt' : 'meta', imageBlock(c.image_url));
    } else {
      feed.noteSkipped(`line(s) of unknown content item type ${describe(c.type)}`, line);
    }
  });
  if (role === 'assistant') {
    const blocks = runs.flatMap((r) => r.blocks);
    return blocks.length > 0 ? feed.assembler.assistant(blocks, line, id, createdAt) : undefined;
  }
  runs.forEach((run, k) => {
    const runId = k === 0 ? id : `${id}_${k}`;
    const content = run.blocks.length === 1 && run.blocks[0].type === 'text' ? (run.blocks[0] as TextBlock).text : run.blocks;
    if (run.role === 'summary') {
      const redacted = isRedactedSummary(run.blocks.map((b) => (b.type === 'text' ? (b as TextBlock).text : '')).join('\n'));
      if (redacted) feed.warnings.push(`${feed.file}:${line}: the compaction summary is redacted in the recording; kept as a placeholder`);
      feed.assembler.prompt(redacted ? REDACTED_SUMMARY_TEXT : content, line, runId, createdAt, 'summary');
      return;
    }
    feed.assembler.prompt(content, line, runId, createdAt);
    if (run.role !== 'prompt') feed.artefacts.set(runId, run.role);
  });
  return undefined;
}

/** How a web search reads in the model's turn: `[web search: "q1"; "q2"]`, `[web search: open_page URL]`, …. */
export function webSearchText(action: unknown): string {
  if (!isObject(action)) return '[web search]';
  const queries = Array.isArray(action.queries) ? action.queries.filter((q): q is string => typeof q === 'string') : [];
  if (action.type === 'search') {
    const all = queries.length > 0 ? queries : typeof action.query === 'string' ? [action.query] : [];
    return `[web search: ${all.map((q) => JSON.stringify(q)).join('; ')}]`;
  }
  if (action.type === 'open_page' && typeof action.url === 'string') return `[web search: open_page ${action.url}]`;
  if (action.type === 'find_in_page' && typeof action.url === 'string')
    return `[web search: find_in_page ${JSON.stringify(action.pattern ?? '')} in ${action.url}]`;
  return `[web search: ${JSON.stringify(action)}]`;
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
  checkJsonDepth(parsed, value, field, fail);
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
