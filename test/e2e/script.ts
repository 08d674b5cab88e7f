// What the loopback Anthropic API answers during the end-to-end run. A responder (not a queue) so
// every answer follows from the request itself: a retried request gets the same answer, and an
// unexpected one gets an echo instead of shifting every later reply.
import { isSummaryRequest } from '../helpers/summaryRequest';
import { lastUserText, reply, type ScriptedReply, type ValidRequest, type WireBlock } from '../loopback/anthropic-server';

export const WORKSPACE_FILE = 'greeting.ts';
export const FILE_BEFORE = `export const greeting = 'Hello from the workspace';\n`;
export const FILE_AFTER = `export const greeting = 'Hello from Splitpoint';\n`;

export const PROMPT_READ = 'What does greeting.ts export?';
export const PROMPT_EDIT = 'Change the greeting to say Hello from Splitpoint.';
export const PROMPT_LONG = 'Explain the design of this workspace in depth.';
export const PROMPT_AFTER = 'Thanks. What is next?';
/** Step 14: a medium answer (about 2,400 tokens, under the threshold) for a split with a summary to be worth it. */
export const PROMPT_MEDIUM = 'Sketch the test plan for this workspace.';

export const ANSWER_READ = 'greeting.ts exports one constant, greeting, set to "Hello from the workspace".';
export const ANSWER_EDIT = 'Done: greeting.ts now says "Hello from Splitpoint".';
export const ANSWER_AFTER = 'Next: add a test for the greeting (I still remember the edit, from the summary).';
export const SUMMARY_TEXT = [
  '1. User requests and constraints: read greeting.ts; change the greeting to "Hello from Splitpoint"; explain the design.',
  '2. Accomplished: edited greeting.ts (approved by the user).',
  '3. Current state: greeting.ts exports greeting = "Hello from Splitpoint".',
  '4. Files touched: greeting.ts.',
  '5. Pending work and next step: none requested yet.',
].join('\n');

/** About 4,000 tokens of markdown: enough to cross the auto-compact threshold the test configures. */
export const LONG_ANSWER = [
  '## Design overview',
  '',
  ...Array.from(
    { length: 115 },
    (_, i) =>
      `- Point ${i + 1}: the module layout keeps configuration, parsing and rendering apart; ` +
      `component ${i + 1} owns its state, validates its inputs at the edge and reports errors as values.`,
  ),
  '',
  'That is the whole design.',
].join('\n');

export const MEDIUM_ANSWER = [
  '## Test plan',
  '',
  ...Array.from(
    { length: 70 },
    (_, i) =>
      `- Case ${i + 1}: the module layout keeps configuration, parsing and rendering apart; ` +
      `case ${i + 1} checks that its component validates its inputs at the edge and reports errors as values.`,
  ),
  '',
  'That is the whole test plan.',
].join('\n');

/** Step 17: the workspace's AGENTS.md, and the prompt the model answers by keeping a task list with the todo tool. */
export const AGENTS_MD = 'Release rule from AGENTS.md: never publish without a signed tag.';
export const PROMPT_PLAN = 'Plan the release and keep a task list.';
export const TODO_PLAN = [
  { id: 'r1', text: 'Tag the release', status: 'in_progress' },
  { id: 'r2', text: 'Publish the package', status: 'pending' },
];
export const TODO_DONE_FIRST = [
  { id: 'r1', text: 'Tag the release', status: 'done' },
  { id: 'r2', text: 'Publish the package', status: 'in_progress' },
];
/** Streamed slowly, so the checklist is seen updated while the turn is still running. */
export const ANSWER_PLAN = `Tagged; publishing is next. ${'Checking the registry state before publishing. '.repeat(4)}`;

export interface ScriptLog {
  summaryRequests: number;
}

/** The tool a tool_result answers, looked up in the request's history. */
function toolNameOf(request: ValidRequest, toolUseId: string): string | undefined {
  for (const m of request.body.messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as WireBlock[]) if (b.type === 'tool_use' && b.id === toolUseId) return b.name;
  }
  return undefined;
}

/**
 * The prompt the request answers: the last text block of the last user message. After a compaction
 * the summary (with its artifact ledger, which quotes earlier prompts) is a text block of the same
 * message, before the prompt: matching the whole message would answer an earlier prompt again.
 */
function promptOf(request: ValidRequest): string {
  const last = request.body.messages.filter((m) => m.role === 'user').at(-1);
  if (last && Array.isArray(last.content)) {
    // The task list the agent sends as the turn's last block (after its cache breakpoints) is not the prompt.
    const texts = (last.content as WireBlock[]).filter((b) => b.type === 'text' && !String(b.text ?? '').startsWith('# Task list'));
    if (texts.length > 0) return String(texts[texts.length - 1].text ?? '');
  }
  return lastUserText(request.body);
}

export function createResponder(log: ScriptLog): (request: ValidRequest) => ScriptedReply {
  return (request) => {
    if (isSummaryRequest(request.body)) {
      log.summaryRequests++;
      return reply.text(SUMMARY_TEXT);
    }
    const messages = request.body.messages;
    const last = messages[messages.length - 1];
    if (last && last.role === 'user' && Array.isArray(last.content)) {
      const result = (last.content as WireBlock[]).find((b) => b.type === 'tool_result');
      if (result) {
        const tool = toolNameOf(request, String(result.tool_use_id));
        if (tool === 'read_file') return reply.text(ANSWER_READ, { chunkDelayMs: 120, textChunkChars: 6 });
        if (tool === 'edit_file') return reply.text(ANSWER_EDIT);
        if (tool === 'todo') return todoStep(request);
        return reply.text(`(unexpected tool result for ${tool})`);
      }
    }
    const prompt = promptOf(request);
    if (prompt.includes(PROMPT_READ))
      return reply.toolUse('read_file', { path: WORKSPACE_FILE }, { text: 'Let me look at greeting.ts first.' });
    if (prompt.includes(PROMPT_EDIT)) {
      return reply.toolUse(
        'edit_file',
        { path: WORKSPACE_FILE, old_string: 'Hello from the workspace', new_string: 'Hello from Splitpoint' },
        { text: 'I will edit greeting.ts.' },
      );
    }
    if (prompt.includes(PROMPT_LONG)) return reply.text(LONG_ANSWER, { textChunkChars: 400 });
    if (prompt.includes(PROMPT_MEDIUM)) return reply.text(MEDIUM_ANSWER, { textChunkChars: 400 });
    if (prompt.includes(PROMPT_AFTER)) return reply.text(ANSWER_AFTER);
    if (prompt.includes(PROMPT_PLAN)) return reply.toolUse('todo', { items: TODO_PLAN }, { text: 'Planning the release.' });
    return reply.text(`echo: ${prompt}`);
  };
}

/** After the first todo call: mark the first item done (a second call in the same turn); after the second: a slow answer. */
function todoStep(request: ValidRequest): ScriptedReply {
  let calls = 0;
  for (const m of request.body.messages)
    if (m.role === 'assistant' && Array.isArray(m.content))
      calls += (m.content as WireBlock[]).filter((b) => b.type === 'tool_use' && b.name === 'todo').length;
  if (calls === 1) return reply.toolUse('todo', { items: TODO_DONE_FIRST }, { text: 'The tag is signed.' });
  return reply.text(ANSWER_PLAN, { chunkDelayMs: 250, textChunkChars: 8 });
}
