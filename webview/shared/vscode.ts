// The one handle on the VS Code webview API. `acquireVsCodeApi` may be called only once per page, so
// it is acquired at most once here and captured before any untrusted content reaches the DOM (a
// later `<form id="acquireVsCodeApi">` cannot clobber what we already hold).

export interface VsCodeApi<TState, TMessage> {
  postMessage(message: TMessage): void;
  getState(): TState | undefined;
  setState(state: TState): void;
}

interface RawVsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

let acquired: RawVsCodeApi | undefined;

/**
 * The VS Code API, or (outside VS Code, e.g. opening the bundle in a plain browser) an in-memory
 * stand-in that keeps state for the page's lifetime and drops messages.
 */
export function getVsCodeApi<TState, TMessage>(): VsCodeApi<TState, TMessage> {
  if (!acquired) {
    const acquire = (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi;
    acquired = typeof acquire === 'function' ? (acquire as () => RawVsCodeApi)() : memoryApi();
  }
  return acquired as VsCodeApi<TState, TMessage>;
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

/** Calls `fn` at most once per `ms`, always with the latest call's arguments (trailing edge). */
export function throttle(fn: () => void, ms: number): { (): void; flush(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    fn();
  };
  const throttled = () => {
    if (timer === undefined) timer = setTimeout(run, ms);
  };
  throttled.flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      run();
    }
  };
  return throttled;
}
