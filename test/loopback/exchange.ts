/**
 * One request/response of the loopback server (an Exchange) and the plain HTTP pieces every endpoint
 * uses: reading the body, a header's value, JSON answers and the API's error body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from './wire';

export interface Exchange {
  record: RecordedRequest;
  res: ServerResponse;
  closed: boolean;
  /** Resolves after `ms`, or earlier when the connection closes. */
  sleep(ms: number): Promise<void>;
  /** Resolves when the connection closes. */
  whenClosed: Promise<void>;
}

/** An Exchange for `res`: it notes when the client goes away (and marks the record aborted if the response was not finished). */
export function trackExchange(record: RecordedRequest, res: ServerResponse): Exchange {
  let markClosed!: () => void;
  const whenClosed = new Promise<void>((resolve) => (markClosed = resolve));
  const timers = new Set<NodeJS.Timeout>();
  const ex: Exchange = {
    record,
    res,
    closed: false,
    whenClosed,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        if (ex.closed || ms <= 0) return resolve();
        const t = setTimeout(() => {
          timers.delete(t);
          resolve();
        }, ms);
        timers.add(t);
        void whenClosed.then(() => {
          clearTimeout(t);
          timers.delete(t);
          resolve();
        });
      }),
  };
  res.on('close', () => {
    ex.closed = true;
    if (!res.writableFinished) record.aborted = true;
    markClosed();
  });
  return ex;
}

/** Answer with the API's error body; client errors carry `x-should-retry: false` as the real API's do. */
export function failExchange(ex: Exchange, status: number, type: string, message: string, source: RecordedRequest['source']): void {
  ex.record.source = source;
  ex.record.status = status;
  // The real API marks client errors as not retryable.
  const headers: Record<string, string> = { 'request-id': ex.record.requestId };
  if (status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) headers['x-should-retry'] = 'false';
  sendJson(ex.res, status, errorBody(type, message, ex.record.requestId), headers);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function errorBody(type: string, message: string, requestId: string) {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.length > 0 ? s : undefined;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
