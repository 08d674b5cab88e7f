// The one connection from a webview to the extension host, used by both the chat and the inspector:
// typed posts, the view state VS Code keeps for the webview, and host messages, each checked by the
// app's parser before the app sees it (a malformed one is logged and dropped, never applied).
// `acquireVsCodeApi` may be called only once per page: it is acquired at most once here, and each
// app connects once, at start-up, before any untrusted content reaches the DOM (a later
// `<form id="acquireVsCodeApi">` cannot clobber what we already hold).

export interface HostConnection<TToHost> {
  post(message: TToHost): void;
  /** What `setState` saved before this page loaded (unchecked: the app validates it). */
  getState(): unknown;
  setState(state: unknown): void;
  /**
   * Calls `apply` with every host message that `parse` accepts; logs and drops the rest.
   * Returns the function that stops listening.
   */
  listen<TFromHost>(parse: (raw: unknown) => TFromHost | null, apply: (message: TFromHost) => void): () => void;
}

interface RawVsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

let acquired: RawVsCodeApi | undefined;

/**
 * The connection to the host. Outside VS Code (the bundle opened in a plain browser) posts are
 * dropped and the state lives as long as the page.
 */
export function connectHost<TToHost>(): HostConnection<TToHost> {
  if (!acquired) {
    const acquire = (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi;
    acquired = typeof acquire === 'function' ? (acquire as () => RawVsCodeApi)() : memoryApi();
  }
  const api = acquired;
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState() ?? undefined,
    setState: (state) => api.setState(state),
    listen(parse, apply) {
      const onMessage = (event: MessageEvent) => {
        const message = parse(event.data);
        if (message === null) console.warn(`[splitpoint webview] dropped a malformed host message (${describe(event.data)})`);
        else apply(message);
      };
      window.addEventListener('message', onMessage);
      return () => window.removeEventListener('message', onMessage);
    },
  };
}

/** Enough to find the sender of a bad message in the log, without dumping its (maybe large) body. */
function describe(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) return typeof raw;
  const type = (raw as { type?: unknown }).type;
  return typeof type === 'string' ? `type ${JSON.stringify(type.slice(0, 40))}` : 'no type';
}

function memoryApi(): RawVsCodeApi {
  let state: unknown;
  return {
    postMessage: (message) => console.debug('[splitpoint webview] not in VS Code; dropped message', message),
    getState: () => state,
    setState: (s) => {
      state = s;
    },
  };
}
