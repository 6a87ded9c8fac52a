/**
 * One stratum connection over TCP or TLS: JSON lines both ways, requests matched to their
 * responses by id, notifications handed to the owner. It never reconnects by itself; the session
 * (session.ts) decides where to go next.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { LineSplitter, OPOI_MAX_LINE_BYTES, decodeMessage, encodeRequest, type StratumErrorArray } from '@cs/stratum';
import type { PoolUrl } from './pool-url.ts';

export interface Reply {
  readonly result: unknown;
  readonly error: StratumErrorArray | null;
}

export interface TlsSettings {
  /** Verify the pool's certificate (against `ca`, or the system's authorities). */
  readonly verify: boolean;
  readonly ca?: string;
}

export interface ConnectionEvents {
  /** A server request or notification (mining.notify, client.reconnect, opoi.assign ...). */
  onMessage(method: string, params: readonly unknown[], id: string | number | null): void;
  /** The connection ended; pending requests have failed with `reason`. */
  onClose(reason: string): void;
}

export class StratumConnection {
  /** opoi.assign carries its prompt as hex: the pool the operator chose may send long lines. */
  private readonly splitter = new LineSplitter(OPOI_MAX_LINE_BYTES);
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly events: ConnectionEvents,
    private readonly requestTimeoutMs: number,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (e) => this.close(e.message));
    socket.on('close', () => this.close('connection closed'));
  }

  /** Opens the socket (and the TLS session) within `timeoutMs`. */
  static open(url: PoolUrl, tls: TlsSettings, events: ConnectionEvents, timeoutMs: number): Promise<StratumConnection> {
    return new Promise((resolve, reject) => {
      const options: ConnectionOptions = { host: url.host, port: url.port, rejectUnauthorized: tls.verify, minVersion: 'TLSv1.2' };
      if (tls.ca) options.ca = tls.ca;
      if (!/^[\d.:]+$/.test(url.host)) options.servername = url.host;
      const socket = url.tls ? connectTls(options) : connectTcp({ host: url.host, port: url.port });
      const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
      const fail = (e: Error) => {
        clearTimeout(timer);
        reject(e);
      };
      socket.once('error', fail);
      socket.once(url.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        resolve(new StratumConnection(socket, events, timeoutMs));
      });
    });
  }

  request(method: string, params: readonly unknown[]): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer within ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.write(encodeRequest(id, method, params));
    });
  }

  close(reason = 'closed by the miner'): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.pending.clear();
    this.events.onClose(reason);
  }

  private onData(chunk: string): void {
    let lines: string[];
    try {
      lines = this.splitter.push(chunk);
    } catch (e) {
      return this.close(`pool sent ${(e as Error).message}`);
    }
    for (const line of lines) {
      if (this.closed) return;
      let msg: ReturnType<typeof decodeMessage>;
      try {
        msg = decodeMessage(line);
      } catch (e) {
        return this.close(`pool sent a line that is not stratum (${(e as Error).message})`);
      }
      if (msg.kind === 'request') {
        this.events.onMessage(msg.method, msg.params, msg.id);
        continue;
      }
      const p = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
      if (!p) continue;
      this.pending.delete(msg.id as number);
      clearTimeout(p.timer);
      p.resolve({ result: msg.result, error: msg.error });
    }
  }
}
