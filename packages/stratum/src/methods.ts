/**
 * Parameters of the ZIP 301 methods, checked as the server receives them, plus the conventions of
 * stock miners on top (worker names, `d=` passwords, NiceHash's port-as-string).
 */
import { StratumError, StratumErrorCode } from './codec.ts';

export interface SubscribeParams {
  readonly userAgent: string;
  /** A session id to resume, when the miner offers one. */
  readonly sessionId: string | null;
}

/**
 * mining.subscribe ["USER_AGENT", SESSION_ID|null, "HOST", PORT]. Everything is optional in
 * practice: nheqminer sends the port as a string, the ZelHash reference miner puts the user in the
 * session slot, NiceHash a timestamp. Only a string session id of hex digits is taken as one.
 */
export function parseSubscribe(params: readonly unknown[]): SubscribeParams {
  const userAgent = typeof params[0] === 'string' ? params[0].slice(0, 128) : '';
  const session = params[1];
  const sessionId = typeof session === 'string' && /^[0-9a-f]{1,32}$/.test(session) ? session : null;
  return { userAgent, sessionId };
}

export interface AuthorizeParams {
  readonly login: string;
  readonly password: string;
}

export function parseAuthorize(params: readonly unknown[]): AuthorizeParams {
  if (typeof params[0] !== 'string' || params[0] === '') throw new StratumError(StratumErrorCode.OTHER, 'worker name must be a non-empty string');
  return { login: params[0], password: typeof params[1] === 'string' ? params[1] : '' };
}

export interface WorkerLogin {
  readonly address: string;
  /** [A-Za-z0-9_-] only, at most 64 characters; "default" when the login has none. */
  readonly worker: string;
  /** A `SOLO:` prefix asks for solo mining (the finder takes the whole block). */
  readonly solo: boolean;
}

/** `<wallet_address>.<worker_name>`, optionally prefixed `SOLO:`. The address is checked by the caller. */
export function parseLogin(login: string): WorkerLogin {
  let rest = login.trim();
  const solo = /^solo:/i.test(rest);
  if (solo) rest = rest.slice(5);
  const dot = rest.indexOf('.');
  const address = dot < 0 ? rest : rest.slice(0, dot);
  const rawWorker = dot < 0 ? '' : rest.slice(dot + 1);
  const worker = rawWorker.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'default';
  return { address, worker, solo };
}

/**
 * A static difficulty from the password: `d=<difficulty>` among `;`- or `,`-separated settings
 * (miningcore's control variables). Returns null when the password sets none.
 */
export function passwordDifficulty(password: string): string | null {
  for (const part of password.split(/[;,]/)) {
    const m = /^\s*d=([0-9.eE+-]+)\s*$/.exec(part);
    if (m) return m[1];
  }
  return null;
}

export interface SubmitParams {
  readonly worker: string;
  readonly jobId: string;
  /** The header time, le32 as hex (8 digits), as it stands in the header. */
  readonly time: string;
  readonly nonce2: string;
  /** Hex of the solution with its compactSize prefix, as every stock miner sends it. */
  readonly solution: string;
}

/**
 * mining.submit ["WORKER", "JOB_ID", "TIME", "NONCE_2", "SOLUTION"]: the shape only. Lengths
 * against the session and the job are checked by share validation.
 */
export function parseSubmit(params: readonly unknown[]): SubmitParams {
  if (params.length < 5 || !params.slice(0, 5).every((p) => typeof p === 'string')) {
    throw new StratumError(StratumErrorCode.OTHER, 'submit takes [worker, job_id, time, nonce_2, solution] as strings');
  }
  const [worker, jobId, time, nonce2, solution] = params as string[];
  return { worker, jobId, time: time.toLowerCase(), nonce2: nonce2.toLowerCase(), solution: solution.toLowerCase() };
}
