/**
 * -stratumprocesses: the miners' sockets held by child processes (socket-process-main.ts), so that
 * a job reaches a thousand miners from several write loops at once, on as many cores. Every
 * decision stays in the pool's process: it accepts each connection (bans and limits first), hands
 * the socket over, and then reads, answers and ends it through a RemoteSocket, as it does a
 * socket of its own. A child only moves bytes: it passes on what a miner sends, writes what the
 * pool says, and writes a job to every socket the pool has put in its audience. A child that
 * dies takes its miners' connections with it (they reconnect) and is started again.
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { startProcess } from '@cs/runtime/worker';
import type { Logger } from 'pino';
import type { TlsSettings } from './miner-socket.ts';

/** The pool's process to a socket process; `c` comes with the socket it hands over. */
export type ToSocketProcess =
  | { readonly t: 'init'; readonly tls: TlsSettings | null }
  | { readonly t: 'c'; readonly i: number; readonly tls: boolean }
  /** Write, end after writing, destroy. */
  | { readonly t: 'w' | 'e'; readonly i: number; readonly d: string }
  | { readonly t: 'x' | 'pause' | 'resume' | 'join' | 'leave'; readonly i: number }
  /** A job line for every socket of the audience. */
  | { readonly t: 'b'; readonly d: string }
  | { readonly t: 'quit' };

/** A socket process to the pool's: what happened on one of its sockets ('h': the socket handed over is held). */
export type FromSocketProcess =
  | { readonly t: 'd'; readonly i: number; readonly d: string }
  | { readonly t: 'h' | 'end' | 'close'; readonly i: number };

/**
 * A miner's socket held by a socket process: the part of net.Socket the stratum server uses, with
 * the same events ('data' as text, 'end', 'close'). Writes are queued to the process in order, so
 * a reply, a job and an end reach the miner as they were written.
 */
export class RemoteSocket extends EventEmitter {
  destroyed = false;
  private paused = false;
  private joined = false;

  constructor(
    private readonly owner: SocketProcess,
    readonly id: number,
  ) {
    super();
  }

  write(data: string | Uint8Array): boolean {
    if (!this.destroyed) this.owner.send({ t: 'w', i: this.id, d: typeof data === 'string' ? data : Buffer.from(data).toString() });
    return true;
  }

  end(data: string): void {
    if (!this.destroyed) this.owner.send({ t: 'e', i: this.id, d: data });
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.owner.send({ t: 'x', i: this.id });
  }

  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.owner.send({ t: 'pause', i: this.id });
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.owner.send({ t: 'resume', i: this.id });
  }

  isPaused(): boolean {
    return this.paused;
  }

  /** In or out of the audience its process writes every pool job to. */
  broadcasts(join: boolean): void {
    if (this.joined === join || this.destroyed) return;
    this.joined = join;
    this.owner.send({ t: join ? 'join' : 'leave', i: this.id });
  }

  /** The socket closed in its process, or the process died. */
  closed(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** How long a socket process that died waits before it is started again (a process failing at start would otherwise loop). */
const RESTART_MS = 1000;

/** One socket process and the sockets it holds. */
class SocketProcess {
  readonly sockets = new Map<number, RemoteSocket>();
  /**
   * Sockets sent and not yet taken ('h'), kept open here until then: Node holds later messages
   * until the child has a handle, and when the child dies first it neither closes the handle it
   * was waiting on nor those queued behind it (the channel is never fully disconnected), so the
   * miner would hang on a connection nobody reads. Each is closed here once taken or when its
   * process dies.
   */
  private readonly handedOver = new Map<number, Socket>();
  private readonly child: ChildProcess;
  private dead = false;

  constructor(
    tls: TlsSettings | null,
    private readonly onExit: (p: SocketProcess, code: number | null, signal: string | null) => void,
  ) {
    // Structured clone, not JSON: a chunk of stratum lines would be escaped and unescaped again.
    this.child = startProcess(import.meta.url, 'socket-process-main', [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('message', (m: FromSocketProcess) => this.onMessage(m));
    // A failed spawn reports only an error, never an exit; a failed send to a process that has
    // just died reports one too, and its exit follows.
    this.child.on('error', () => {
      if (this.child.pid === undefined) this.died(null, null);
    });
    this.child.once('exit', (code, signal) => this.died(code, signal));
    this.send({ t: 'init', tls });
  }

  /** Taking new sockets: started, and not dead or stopping. */
  get up(): boolean {
    return !this.dead && this.child.connected;
  }

  send(message: ToSocketProcess, handle?: Socket): void {
    if (this.child.connected) this.child.send(message, handle, { keepOpen: handle !== undefined });
  }

  adopt(socket: Socket, id: number, tls: boolean): RemoteSocket {
    const remote = new RemoteSocket(this, id);
    this.sockets.set(id, remote);
    this.handedOver.set(id, socket);
    socket.on('error', () => {});
    this.send({ t: 'c', i: id, tls }, socket);
    return remote;
  }

  private died(code: number | null, signal: string | null): void {
    if (this.dead) return;
    this.dead = true;
    for (const socket of this.handedOver.values()) socket.destroy();
    this.handedOver.clear();
    for (const s of this.sockets.values()) s.closed();
    this.sockets.clear();
    this.onExit(this, code, signal);
  }

  private onMessage(m: FromSocketProcess): void {
    const s = this.sockets.get(m.i);
    if (!s) {
      // Not, or no longer, a connection here: the process must not keep it.
      if (m.t !== 'close') this.send({ t: 'x', i: m.i });
      return;
    }
    if (m.t === 'h') this.release(m.i);
    else if (m.t === 'd') s.emit('data', m.d);
    else if (m.t === 'end') s.emit('end');
    else {
      this.sockets.delete(m.i);
      this.release(m.i);
      s.closed();
    }
  }

  /** This process's copy of a socket handed over, closed: the socket process holds it, or it is gone. */
  private release(i: number): void {
    this.handedOver.get(i)?.destroy();
    this.handedOver.delete(i);
  }

  /** Resolves once the process has exited. */
  quit(): Promise<void> {
    if (this.dead) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.send({ t: 'quit' });
    else this.child.kill('SIGKILL');
    return exited;
  }
}

export class SocketProcesses {
  private readonly processes: SocketProcess[] = [];
  private nextId = 1;
  private stopping = false;

  constructor(
    count: number,
    private readonly tls: TlsSettings | null,
    private readonly log: Logger,
  ) {
    for (let i = 0; i < count; i++) this.start(i);
  }

  /** Starts slot `i`'s process; one that dies is started again after RESTART_MS, unless the pool is stopping. */
  private start(i: number): void {
    try {
      this.processes[i] = new SocketProcess(this.tls, (_p, code, signal) => {
        if (this.stopping) return;
        this.log.error({ code, signal }, 'a stratum socket process died; its miners were disconnected, starting it again');
        setTimeout(() => this.stopping || this.start(i), RESTART_MS).unref();
      });
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'a stratum socket process could not start; trying again');
      setTimeout(() => this.stopping || this.start(i), RESTART_MS).unref();
    }
  }

  /**
   * Hands an accepted socket (paused since its accept) to the live socket process holding the
   * fewest; null when none is up (all of them being started again).
   */
  adopt(socket: Socket, tls: boolean): RemoteSocket | null {
    let least: SocketProcess | null = null;
    for (const p of this.processes) if (p?.up && (!least || p.sockets.size < least.sockets.size)) least = p;
    return least ? least.adopt(socket, this.nextId++, tls) : null;
  }

  /** A job line to every socket in the processes' audiences. */
  broadcast(line: string): void {
    for (const p of this.processes) p?.send({ t: 'b', d: line });
  }

  /** No process is started again from now on: the pool is stopping. */
  stopRestarts(): void {
    this.stopping = true;
  }

  /** Stops the processes; their sockets close with them. */
  async close(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.processes.map((p) => p?.quit()));
  }
}
