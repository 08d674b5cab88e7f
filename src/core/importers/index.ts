// Session importers: read a conversation saved by Splitpoint, the Anthropic Messages API, Claude Code or
// the Codex CLI and turn it into Splitpoint's message model. importSession is a pure function over text;
// importSessionFile (stream.ts) reads a file line by line into the same importers (no `vscode` either).
// Malformed input throws an ImportError that names the file, the line and the field; what can be repaired
// (a tool call with no result, a result with no call, a rewound branch) is repaired and reported in `warnings`.
//
// Formats, and what the import keeps:
//  - splitpoint-jsonl: one Message per line, optionally after a header line. Exact round trip with
//    serializeSplitpointJsonl.
//  - anthropic-json: an array of MessageParam objects, or an object with a `messages` array (a saved request
//    body; `system`, `tools`, `model`… are ignored). Messages get the deterministic ids imp_0, imp_1, ….
//    Structural problems of the request (say, a tool_use with no tool_result) are reported as warnings.
//  - claude-code-jsonl (~/.claude/projects/<project>/<session>.jsonl): the context the model saw. Each
//    `compact_boundary` + `isCompactSummary` pair is a RecordedCompaction (the context before it archived,
//    the summary a synthetic 'summary' message, then any segment the compaction kept); `messages` is the
//    last summary plus what followed. Queued prompts, slash commands, artefacts (shown, never prompts),
//    attachments as Claude Code renders them, recorded usage per response, tool results written before
//    their call, prompts a rewind abandoned (rolledBackPrompts), and what is skipped (always with a
//    warning): see claudeCode.ts. genuinePromptCount (prompts.ts) counts what a person typed.
//    Message id = `uuid`.
//  - codex-rollout-jsonl (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and the older un-enveloped
//    rollout lines), replayed as Codex rebuilds a thread: response_item messages, function/custom/local-shell
//    and tool_search calls and their outputs, mapped to text, tool_use and tool_result blocks (tool_use id =
//    call_id); web_search_call as the model's text (results are never recorded). Reasoning items are
//    dropped with one warning: an unsigned thinking block would be rejected by the API. Developer messages
//    and the harness's context injections (<environment_context>, AGENTS.md, <turn_aborted>, …) are
//    user-role artefacts (mapping in codexContext.ts). A `compacted` line is a recorded compaction: the
//    context before it is archived and its replacement_history (encrypted or redacted summaries as
//    placeholders) heads the current context; `thread_rolled_back` drops turns (their prompts kept in
//    rolledBackPrompts); `token_count` events are
//    the recorded usage of their call, and give the context window. Message id = `codex_<line>` (items of a
//    replacement history: `codex_<line>_h<i>`).
// For the last two, a tool call with no result or a result with no call is dropped with a warning naming
// its line, so the output satisfies requestViolations(toApiMessages(messages)) for any well-formed session.
//
// Layout: whole.ts imports a text and stream.ts a file; detect.ts decides the format; one file per format
// (splitpoint, anthropic, claudeCode, codex);
// assembler.ts rebuilds API-valid messages from agent logs; json.ts is the shared line plumbing. Message
// shapes are checked by ../messageShape, the validator the session log and transcripts use too.

export { detectFormat, importSession } from './whole';
export { genuinePromptCount, type GenuinePromptCount } from './prompts';
export { importSessionFile, type StreamImportOptions } from './stream';

export { MAX_JSON_DEPTH, MAX_SESSION_FILE_BYTES, readSessionFile } from './bounds';
export { serializeImportResult, serializeSplitpointJsonl, serializeSplitpointSession, type SplitpointSession } from './splitpoint';
export {
  ImportError,
  SESSION_FORMATS,
  SPLITPOINT_FORMAT_VERSION,
  SPLITPOINT_HEADER_TYPE,
  SPLITPOINT_SESSION_VERSION,
  type ImportResult,
  type RecordedCompaction,
  type SessionFormat,
  type SplitpointHeader,
  type SplitpointHeaderFields,
} from './types';
