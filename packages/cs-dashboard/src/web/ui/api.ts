// The dashboard's same-origin API (docs/dashboard.md, "API"); the server adds every credential.
import type { Live, Push } from './live.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a non-JSON error body is shown as it came
  }
  if (!res.ok) {
    const error = typeof body === 'object' && body !== null && 'error' in body ? String((body as { error: unknown }).error) : text;
    throw new ApiError(res.status, error);
  }
  return body as T;
}

export const getJson = async <T>(url: string): Promise<T> => answer<T>(await fetch(url));

/** The node answered the call with a JSON-RPC error (Core's codes: -5 not found, ...). */
export class RpcFailed extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export async function postJson<T>(url: string, value: unknown): Promise<T> {
  return answer<T>(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) }));
}

/** What every page gets: the chosen node's RPC and REST, the pool and bridge APIs, the live feed. */
export interface Ctx {
  readonly node: number;
  rpc<T>(method: string, ...params: unknown[]): Promise<T>;
  rest<T>(path: string): Promise<T>;
  pool<T>(path: string): Promise<T>;
  bridge<T>(path: string): Promise<T>;
  /** Pushes for as long as the page is shown. */
  readonly live: { on(fn: (p: Push) => void): void };
  readonly askEnabled: boolean;
  /** Timers a page starts: cleared when the page changes. */
  every(ms: number, fn: () => void): void;
}

/** A page's context; `shown` turns false once another page replaced it, and its late listeners and timers are then not started. */
export function makeCtx(node: number, live: Live, askEnabled: boolean, timers: number[], shown: () => boolean): Ctx {
  return {
    node,
    async rpc<T>(method: string, ...params: unknown[]) {
      const r = await postJson<{ result: T; error?: { code: number; message: string } }>(`/api/node/${node}/rpc`, { method, params });
      if (r.error) throw new RpcFailed(r.error.code, r.error.message);
      return r.result;
    },
    rest: <T>(path: string) => getJson<T>(`/api/node/${node}/rest/${path}`),
    pool: <T>(path: string) => getJson<T>(`/api/pool/${path}`),
    bridge: <T>(path: string) => getJson<T>(`/api/bridge/${path}`),
    live: {
      on(fn) {
        if (shown()) live.on(fn);
      },
    },
    askEnabled,
    every(ms, fn) {
      if (shown()) timers.push(window.setInterval(fn, ms));
    },
  };
}
