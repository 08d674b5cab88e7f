// Where the API key may go. Anthropic's API gets it without a question; any other base URL only
// after the user allowed that exact origin (scheme, host and port), asked once and remembered.
// Without consent the key is not handed out, so no request is made. Plain TypeScript (no `vscode`
// import): the dialog and the store of consents are injected (apiKeyCommands.ts wires VS Code's).
import { SplitpointError } from '../core';

export const ANTHROPIC_API_URL = 'https://api.anthropic.com';
const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';

/** The key was not handed out for `url` (declined, or not an http(s) URL). Shown in the chat. */
export class BaseUrlNotAllowedError extends SplitpointError {
  constructor(
    readonly url: string,
    readonly reason: 'declined' | 'invalid',
  ) {
    super(
      reason === 'invalid'
        ? `Nothing was sent: the API base URL "${url}" (splitpoint.baseUrl or ANTHROPIC_BASE_URL) is not an http(s) URL.`
        : `Nothing was sent: your API key may not go to ${url}, which is not Anthropic's API. ` +
            'Send again and choose "Allow" if you trust that server, or clear splitpoint.baseUrl in your user settings.',
    );
    this.name = 'BaseUrlNotAllowedError';
  }
}

/** `scheme://host[:port]` of an http(s) URL, lower-cased, default port dropped; undefined for anything else. */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
}

/** The URL the SDK will call: the setting, else ANTHROPIC_BASE_URL (the SDK reads it), else Anthropic's. */
export function effectiveBaseUrl(setting: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  return setting?.trim() || env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_API_URL;
}

/** True unless `url` is Anthropic's API or its origin is among `consented`. Unusable URLs always need it. */
export function consentNeeded(url: string, consented: readonly string[]): boolean {
  const origin = originOf(url);
  if (!origin) return true;
  return origin !== ANTHROPIC_ORIGIN && !consented.includes(origin);
}

export interface ApiKeyGateDeps {
  /** The stored key (undefined: none). */
  getKey: () => Promise<string | undefined>;
  /** The current `splitpoint.baseUrl` (user value; undefined when unset). */
  baseUrl: () => string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** Origins the user allowed, remembered across sessions. */
  consents: { list(): readonly string[]; add(origin: string): PromiseLike<void> };
  /** Asks the user whether the key may go to `url`; true means yes. */
  ask: (url: string) => PromiseLike<boolean>;
}

export class ApiKeyGate {
  /** One question per origin at a time: concurrent callers wait for the same answer. */
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: ApiKeyGateDeps) {}

  /**
   * The key, if it may go to the current base URL (asking when needed). Throws BaseUrlNotAllowedError
   * when it may not. The URL is read again after every question, and the final check and the return
   * happen in one synchronous step, so the caller builds its client for the URL that was checked.
   */
  async key(): Promise<string | undefined> {
    const key = await this.deps.getKey();
    if (!key) return undefined;
    const allowedNow = new Set<string>();
    for (;;) {
      const url = effectiveBaseUrl(this.deps.baseUrl(), this.deps.env);
      const origin = originOf(url);
      if (!origin) throw new BaseUrlNotAllowedError(url, 'invalid');
      if (allowedNow.has(origin) || !consentNeeded(url, this.deps.consents.list())) return key;
      if (!(await this.askOnce(url, origin))) throw new BaseUrlNotAllowedError(url, 'declined');
      allowedNow.add(origin);
    }
  }

  private askOnce(url: string, origin: string): Promise<boolean> {
    let answer = this.pending.get(origin);
    if (!answer) {
      answer = (async () => {
        try {
          const yes = (await this.deps.ask(url)) === true;
          if (yes) await this.deps.consents.add(origin);
          return yes;
        } finally {
          this.pending.delete(origin);
        }
      })();
      this.pending.set(origin, answer);
    }
    return answer;
  }
}
