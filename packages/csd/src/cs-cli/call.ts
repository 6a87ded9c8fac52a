import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, ConnectionFailed } from './errors.ts';
import { postJson, type Endpoint } from './http.ts';
import { JsonSyntaxError, member, parseJson, type JsonValue } from './json.ts';

/** The JSON-RPC error a node answers while still loading (Core's RPC_IN_WARMUP). */
const RPC_IN_WARMUP = -28;

export interface CallOptions {
  readonly endpoint: Endpoint;
  /**
   * "user:password", or null when none could be found (no rpcpassword, no readable cookie).
   * Asked again on every attempt: a node that starts while -rpcwait waits writes a new cookie.
   */
  readonly credentials: () => Promise<string | null>;
  readonly body: string;
  readonly timeoutSeconds: number;
  readonly wait: boolean;
  /** 0 waits forever. */
  readonly waitTimeoutSeconds: number;
  /** Named in the missing-credentials message. */
  readonly confFile: string | null;
}

function isWarmup(reply: JsonValue): boolean {
  const error = member(reply, 'error');
  const code = error && member(error, 'code');
  return code?.type === 'number' && Number(code.text) === RPC_IN_WARMUP;
}

/** One request; HTTP statuses are read as bitcoin-cli reads them. Returns the reply object. */
async function callOnce(o: CallOptions): Promise<JsonValue> {
  const credentials = await o.credentials();
  const reply = await postJson(o.endpoint, credentials ?? '', o.body, o.timeoutSeconds);
  if (reply.status === 401) {
    throw new CliError(
      credentials === null
        ? 'Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  ' +
            `See -rpcpassword and -stdinrpcpass.  Configuration file: (${o.confFile ?? 'none'})`
        : 'Authorization failed: Incorrect rpcuser or rpcpassword',
    );
  }
  if (reply.status === 503) throw new CliError(`Server response: ${reply.body}`);
  // 400, 404 and 500 still carry a JSON-RPC reply (bad request, unknown method, any RPC error).
  if (reply.status >= 400 && ![400, 404, 500].includes(reply.status)) {
    throw new CliError(`server returned HTTP error ${reply.status}`);
  }
  if (reply.body === '') throw new CliError('no response from server');
  let parsed: JsonValue;
  try {
    parsed = parseJson(reply.body);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new CliError("couldn't parse reply from server");
    throw error;
  }
  if (parsed.type !== 'object' || parsed.entries.length === 0) {
    throw new CliError('expected reply to have result, error and id properties');
  }
  return parsed;
}

/**
 * Sends the request; with -rpcwait, retries every second while the server cannot be reached or
 * is warming up, until it answers or -rpcwaittimeout passes.
 */
export async function callRpc(o: CallOptions): Promise<JsonValue> {
  const deadline = Date.now() + o.waitTimeoutSeconds * 1000;
  for (;;) {
    try {
      const reply = await callOnce(o);
      if (o.wait && isWarmup(reply)) throw new ConnectionFailed('server in warmup');
      return reply;
    } catch (error) {
      if (!(error instanceof ConnectionFailed) || !o.wait) throw error;
      if (o.waitTimeoutSeconds > 0 && Date.now() >= deadline) {
        throw new ConnectionFailed(`timeout on transient error: ${error.message}`);
      }
      await sleep(1000);
    }
  }
}
