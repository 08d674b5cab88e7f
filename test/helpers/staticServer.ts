// A tiny HTTP server on 127.0.0.1 for the webview harnesses: each page, bundle and stylesheet is
// answered by a route function; anything it does not know is a 404, so a leak is visible both in the
// page's requests and in `served`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticResponse {
  /** Default 200. */
  status?: number;
  /** MIME type without charset (`; charset=utf-8` is added to text types). */
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** Answers a request, or undefined for a 404. `origin` is the server's own http://127.0.0.1:port. */
export type Route = (url: URL, origin: string) => StaticResponse | undefined | Promise<StaticResponse | undefined>;

export interface StaticServer {
  origin: string;
  /** Every path the server was asked for, in order. */
  served: string[];
  close(): Promise<void>;
}

export async function startStaticServer(route: Route): Promise<StaticServer> {
  const served: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      served.push(url.pathname);
      let r: StaticResponse | undefined;
      try {
        r =
          url.pathname === '/favicon.ico'
            ? { status: 204 }
            : ((await route(url, origin)) ?? { status: 404, type: 'text/plain', body: 'not found' });
      } catch (e) {
        r = { status: 500, type: 'text/plain', body: String(e) };
      }
      const headers: Record<string, string> = { 'cache-control': 'no-store', ...r.headers };
      if (r.type) headers['content-type'] = /^text\/|javascript|json/.test(r.type) ? `${r.type}; charset=utf-8` : r.type;
      res.writeHead(r.status ?? 200, headers);
      res.end(r.body ?? '');
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections a browser left open would hold close() back.
        server.closeAllConnections();
      }),
  };
}
