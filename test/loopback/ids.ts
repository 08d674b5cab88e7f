/** Ids in the real API's shapes, for messages, tool uses and requests. */
import { randomBytes } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE58[bytes[i]! % BASE58.length];
  return out;
}
/** `msg_01` + 22 chars, like `msg_01XFDUDYJgAACzvnptvVoYEL`. */
export const newMessageId = (): string => `msg_01${randomId(22)}`;
/** `toolu_01` + 22 chars. */
export const newToolUseId = (): string => `toolu_01${randomId(22)}`;
/** `req_011C` + 20 chars, like `req_011CSURy8kJA4QAXZjsnBj5N`. */
export const newRequestId = (): string => `req_011C${randomId(20)}`;
