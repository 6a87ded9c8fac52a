/**
 * A minimal HTTP client for the tests of this folder: one request, whole response, over a fresh
 * connection (so that per-connection state such as rpcallowip is exercised each time).
 */
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

export interface TestResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface TestRequest {
  readonly port: number;
  readonly method?: string;
  readonly path?: string;
  readonly headers?: OutgoingHttpHeaders;
  readonly body?: string | Buffer;
  readonly localAddress?: string;
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function httpRequest(req: TestRequest): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port: req.port,
        method: req.method ?? 'POST',
        path: req.path ?? '/',
        headers: req.headers,
        localAddress: req.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}
