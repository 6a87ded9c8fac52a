import { request } from 'node:http';
import { ConnectionFailed } from './errors.ts';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** `/`, or `/wallet/<url-encoded name>` with -rpcwallet. */
  readonly path: string;
}

export interface HttpReply {
  readonly status: number;
  readonly body: string;
}

const HINT = 'Make sure the csd server is running and that you are connecting to the correct RPC port.\n' + 'Use "cs-cli -help" for more info.';

function connectionFailed(endpoint: Endpoint, detail: string): ConnectionFailed {
  return new ConnectionFailed(`Could not connect to the server ${endpoint.host}:${endpoint.port}${detail}\n\n${HINT}`);
}

/**
 * POSTs one JSON-RPC body to `/` and returns whatever status and body come back. Anything that
 * keeps an answer from arriving (refused, reset, timed out) is a ConnectionFailed, the error
 * -rpcwait retries. `timeoutSeconds` 0 waits forever.
 */
export function postJson(endpoint: Endpoint, authorization: string, body: string, timeoutSeconds: number): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: endpoint.host,
        port: endpoint.port,
        method: 'POST',
        path: endpoint.path,
        // One request per process: no keep-alive pool to hold the process open afterwards.
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Basic ${Buffer.from(authorization).toString('base64')}`,
          Connection: 'close',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => reject(connectionFailed(endpoint, ` (${error.message})`)));
      },
    );
    if (timeoutSeconds > 0) {
      req.setTimeout(timeoutSeconds * 1000, () => req.destroy(connectionFailed(endpoint, ' (timeout reached)')));
    }
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof ConnectionFailed) return reject(error);
      // A refused connection is the ordinary "not running" case and needs no detail.
      reject(connectionFailed(endpoint, error.code === 'ECONNREFUSED' ? '' : ` (${error.code ?? error.message})`));
    });
    req.end(body);
  });
}
