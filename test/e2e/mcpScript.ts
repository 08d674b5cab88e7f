// What the loopback Anthropic API answers in the MCP end-to-end run (mcp.e2e.test.ts): a prompt asks
// for server-everything's `echo` tool; the tool's result is answered with what it echoed; anything
// else is echoed back.
import { lastUserText, reply, type ScriptedReply, type ValidRequest, type WireBlock } from '../loopback/anthropic-server';

/** server-everything's echo tool, as the agent names an MCP tool (mcp__<server>__<tool>). */
export const TOOL = 'mcp__everything__echo';

export const PROMPT_ECHO = 'Echo a greeting through the MCP server.';
export const PROMPT_ALWAYS = 'Echo again, please.';
export const PROMPT_AUTO = 'One more echo.';
export const PROMPT_AFTER_CRASH = 'Are you still there?';
/** The message the model asks the echo tool to echo for `prompt`. */
export const messageFor = (prompt: string) => `hello from the e2e test (${prompt.length})`;

/** The scripted model: a prompt asks for the echo tool; its result is answered with what it echoed. */
export function responder(request: ValidRequest): ScriptedReply {
  const last = request.body.messages.at(-1);
  if (last?.role === 'user' && Array.isArray(last.content)) {
    const result = (last.content as WireBlock[]).find((b) => b.type === 'tool_result');
    if (result) return reply.text(`The MCP server answered: ${JSON.stringify(result.content)}`);
  }
  const prompt = lastUserText(request.body);
  for (const p of [PROMPT_ECHO, PROMPT_ALWAYS, PROMPT_AUTO]) if (prompt.includes(p)) return reply.toolUse(TOOL, { message: messageFor(p) });
  return reply.text(`echo: ${prompt}`);
}
