import type { Connection, MinerSocket } from './connection.ts';
import { DenseList } from './dense-list.ts';
import { RemoteSocket } from './socket-processes.ts';

/**
 * Who a job broadcast writes to, from each connection's first authorize (which fixes its payout)
 * until it ends (its last line sent, or the miner hung up) or closes. Pool miners all get the same
 * notify line, so their sockets are kept in a dense array, and a broadcast reads nothing else per
 * miner. Walking the connections instead reads one more object per miner, spread over the pool's
 * heap: in runs alternating the two, the array was up to 2–4% nearer a bare write of the same
 * bytes (docs/pool-performance.md). A socket held by a socket process (-stratumprocesses) is in
 * that process's audience instead. Solo miners each get a line of their own.
 */
export class JobAudience {
  private readonly sockets = new DenseList<Connection, MinerSocket>();
  private readonly soloConnections = new Set<Connection>();

  /**
   * A connection whose payout its first authorize has just fixed. One that ended or closed while
   * its authorize waited for the node does not join: nothing would remove it again.
   */
  add(c: Connection): void {
    if (c.payout === null) throw new Error('a connection joins the job audience once its payout is fixed');
    if (c.closed) return;
    if (c.payout !== '') {
      this.soloConnections.add(c);
      return;
    }
    if (c.socket instanceof RemoteSocket) return c.socket.broadcasts(true);
    this.sockets.add(c, c.socket);
  }

  /** A connection that closed; the last entry takes its place. */
  remove(c: Connection): void {
    this.soloConnections.delete(c);
    if (c.socket instanceof RemoteSocket) return c.socket.broadcasts(false);
    this.sockets.delete(c);
  }

  /** The sockets of the pool's miners held by this process. */
  get pool(): readonly MinerSocket[] {
    return this.sockets.values;
  }

  /** The solo miners' connections. */
  get solo(): ReadonlySet<Connection> {
    return this.soloConnections;
  }
}
