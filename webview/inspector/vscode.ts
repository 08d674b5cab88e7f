// The one handle on the VS Code webview API: typed posts to the host and the persisted view state.
import type { InspectorToHost } from '../../src/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface HostChannel {
  post(message: InspectorToHost): void;
  getState<T>(): T | undefined;
  setState<T>(state: T): void;
}

/** acquireVsCodeApi may be called once per page: this wraps that one call. */
export function connectHost(): HostChannel {
  const api: VsCodeApi =
    typeof acquireVsCodeApi === 'function'
      ? acquireVsCodeApi()
      : { postMessage: () => undefined, getState: () => undefined, setState: () => undefined };
  return {
    post: (message) => api.postMessage(message),
    getState: <T,>() => (api.getState() ?? undefined) as T | undefined,
    setState: (state) => api.setState(state),
  };
}
