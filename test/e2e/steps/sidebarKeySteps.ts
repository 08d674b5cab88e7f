// The first step of the suites that start from a chat with its key set (review, composer): the key
// set from the sidebar, allowed for the user's base URL, and the chat's welcome shown.
import { setApiKeyFromSidebar } from '../run';
import { chat, UI_TIMEOUT, type E2eSession } from './session';

/** Step 1 (sidebar-and-key): the sidebar asks for a key; it is set with the command and allowed for the loopback; the chat welcomes. */
export async function keySetFromSidebar(s: E2eSession & { readonly apiKey: string }): Promise<void> {
  await setApiKeyFromSidebar(s.page, () => chat(s.page), s.apiKey, s.loopback.baseURL, UI_TIMEOUT);
  await (await chat(s.page)).locator('section.empty.welcome').waitFor({ timeout: UI_TIMEOUT });
}
