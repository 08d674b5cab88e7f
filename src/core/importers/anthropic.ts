// Anthropic Messages JSON: an array of MessageParam objects, or a saved request body with `messages`
// (`system`, `tools`… are ignored; a string `model` is kept, it prices plans). Messages get the deterministic ids imp_0, imp_1, ….
import { toApiMessages, type Message } from '../conversation/conversation';
import { requestViolations } from '../conversation/invariants';
import { checkContent, checkRole } from '../conversation/messageShape';
import { describe, failAt, isObject } from './json';
import type { ImportResult } from './types';

export function importAnthropicJson(json: unknown, file: string): ImportResult {
  const fail = failAt(file, undefined);
  const list = Array.isArray(json) ? json : isObject(json) ? json.messages : undefined;
  if (!Array.isArray(list)) return fail('messages', `expected an array of messages, got ${describe(list)}`);
  const messages: Message[] = list.map((m: unknown, i: number) => {
    const field = `messages[${i}]`;
    if (!isObject(m)) return fail(field, `expected a message object, got ${describe(m)}`);
    const role = checkRole(m.role, `${field}.role`, fail);
    const content = checkContent(m.content, `${field}.content`, fail);
    return { id: `imp_${i}`, role, content };
  });
  const warnings =
    messages.length === 0
      ? [`${file}: the file holds no messages`]
      : requestViolations(toApiMessages(messages)).map((v) => `${file}: not a valid Messages API request: ${v}`);
  const model = isObject(json) && typeof json.model === 'string' && json.model.trim() !== '' ? json.model : undefined;
  return { format: 'anthropic-json', messages, compactions: [], warnings, ...(model ? { model } : {}) };
}
