// How each webview starts, the same for the chat and the inspector: render the app inside its store's
// provider (the store already holds what the view saved, so the first paint is never blank), apply
// the host's messages as they arrive, then tell the host the view is ready.
import { render, type FunctionComponent } from 'preact';
import type { HostConnection } from './host';
import type { StoreContext, WebviewStore } from './storeContext';

export interface WebviewApp<TStore extends WebviewStore<unknown, TFromHost>, TFromHost> {
  host: HostConnection<unknown>;
  store: TStore;
  context: StoreContext<TStore>;
  App: FunctionComponent;
  /** The app's check of a host message (null: malformed, dropped). */
  parse(raw: unknown): TFromHost | null;
}

export function mountWebview<TStore extends WebviewStore<unknown, TFromHost>, TFromHost>(app: WebviewApp<TStore, TFromHost>): void {
  const { Context } = app.context;
  // The page shell (src/extension/webviewHtml.ts) provides #root.
  const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
  render(
    <Context.Provider value={app.store}>
      <app.App />
    </Context.Provider>,
    root,
  );
  app.host.listen(app.parse, (message) => app.store.receive(message));
  app.store.ready();
}
