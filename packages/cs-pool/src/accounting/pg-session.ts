/**
 * The PostgreSQL store's connections when the server stalls or dies (docs/pool.md, "PostgreSQL
 * that stalls or dies"). Every statement has a deadline, `timeoutMs`: the server's own
 * statement_timeout, and a client-side one, since a server that is paused or unreachable never
 * answers at all; connecting has the same deadline. A statement the client gave up on, or whose
 * connection broke, has an unknown outcome: its transaction may still commit when a paused server
 * resumes. Its backend is remembered, and before the next statement (`settle`) it is terminated
 * and waited for, so that whatever it did is final and visible before anything is read or
 * decided again: a step retried after a lost answer can never meet a late commit of itself.
 */
import type { Socket } from 'node:net';
import pg from 'pg';

/** A failure worth trying again: the server was unreachable, stalled, restarting or busy. */
export class TransientError extends Error {}

/**
 * SQLSTATEs that say nothing about the statement itself: connection exceptions (08), the server
 * shutting down, crashing or starting (57P01-57P03), too many connections (53300), a statement
 * cancelled by its timeout (57014), and serialization failures and deadlocks (40001, 40P01).
 */
function transientCode(code: string): boolean {
  return code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014', '40001', '40P01'].includes(code);
}

/** Whether an error from pg means the server, not the statement, failed. */
export function isTransient(e: unknown): boolean {
  if (e instanceof TransientError) return true;
  const code = (e as { code?: unknown }).code;
  // A DatabaseError carries a five-character SQLSTATE; a broken socket carries a Node code or none.
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return transientCode(code);
  return true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PgSession {
  readonly pool: pg.Pool;
  /** Backends whose last statement's outcome is unknown (pid). */
  private readonly unsettled = new Set<number>();
  private settling: Promise<void> | null = null;

  constructor(
    readonly url: string,
    readonly timeoutMs: number,
    /** Told how many backends were settled, each time some were. */
    private readonly onSettled: (backends: number) => void = () => {},
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 8, ...this.clientOptions() });
    // A connection the server dropped (killed, restarted) emits an error on its client and the
    // pool; the statement it carried fails on its own, and the pool discards the client.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  /** What every connection of the store is opened with. */
  clientOptions(): pg.ClientConfig {
    return { connectionTimeoutMillis: this.timeoutMs, statement_timeout: this.timeoutMs };
  }

  /**
   * Runs `work` on a pooled connection once earlier unknown outcomes are settled. A connection
   * that failed is discarded, its backend remembered if its statement's outcome is unknown.
   */
  async run<T>(work: (q: Query) => Promise<T>): Promise<T> {
    await this.settle();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw new TransientError(`cannot reach the database: ${(e as Error).message}`);
    }
    let broken: unknown = null;
    try {
      const q: Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
        this.query<R>(client, text, values).catch((e: unknown) => {
          if (isTransient(e)) broken = e;
          throw e;
        });
      return await work(q);
    } finally {
      client.release(broken === null ? undefined : (broken as Error));
    }
  }

  /** One statement with the client-side deadline; a connection that misses it is cut and its backend left to settle. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(client: pg.ClientBase, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const pid = (client as unknown as { processID: number | null }).processID;
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        if (pid !== null) this.unsettled.add(pid);
        (client as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
        reject(new TransientError(`the database did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      client.query<R>(text, values).then(
        (r) => {
          if (done) return;
          clearTimeout(timer);
          resolve(r);
        },
        (e: unknown) => {
          if (done) return;
          clearTimeout(timer);
          // A broken connection may have carried a COMMIT the server still acts on.
          if (isTransient(e) && pid !== null && (e as { code?: unknown }).code !== '57014') this.unsettled.add(pid);
          reject(e);
        },
      );
    });
  }

  /**
   * Makes every unknown outcome final: the backends that may still be working for a statement
   * the client gave up on are terminated (pg_terminate_backend: a commit in progress completes,
   * anything else rolls back) and waited for until they are gone. A backend of a server that
   * restarted since is gone already; should its pid belong to a new backend by then, that one is
   * cut off too, and its client sees a lost connection it retries like any other.
   */
  private settle(): Promise<void> {
    if (this.unsettled.size === 0) return Promise.resolve();
    this.settling ??= this.terminate().finally(() => {
      this.settling = null;
    });
    return this.settling;
  }

  private async terminate(): Promise<void> {
    const pids = [...this.unsettled];
    const client = new pg.Client({ connectionString: this.url, ...this.clientOptions() });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (e) {
      throw new TransientError(`cannot reach the database: ${(e as Error).message}`);
    }
    try {
      await this.query(client, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
      for (;;) {
        const r = await this.query<{ pid: number }>(client, 'SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
        if (r.rows.length === 0) break;
        await sleep(20);
      }
      for (const pid of pids) this.unsettled.delete(pid);
      this.onSettled(pids.length);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** A statement on the connection `run` lent. */
export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;
