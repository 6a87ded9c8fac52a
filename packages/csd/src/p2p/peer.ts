/**
 * One connection to a peer: framing, the version handshake, pings, byte counters and the limits
 * every connection has. It knows nothing of the chain; what messages mean is the network's
 * business (network.ts), which gets each message once the handshake is done, in arrival order,
 * one at a time.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { DecodeError } from '@cs/consensus';
import { encodeFrame, FrameDecoder, FrameError } from './framing.ts';
import { type Command, decodePayload, encodePayload, isKnownCommand, type Message, type VersionPayload } from './messages.ts';
import type { NetAddress } from './netaddr.ts';
import { LOCAL_SERVICES, MIN_PEER_PROTO_VERSION, PROTOCOL_VERSION, USER_AGENT } from './protocol.ts';
import type { Permissions } from './whitelist.ts';

/** Core's PING_INTERVAL and TIMEOUT_INTERVAL. */
export const PING_INTERVAL_MS = 2 * 60_000;
export const TIMEOUT_INTERVAL_MS = 20 * 60_000;
/** Core's -maxsendbuffer and -maxreceivebuffer defaults. */
export const MAX_SEND_BUFFER = 1_000_000;
export const MAX_RECEIVE_BUFFER = 5_000_000;

export interface PeerSettings {
  readonly magic: Uint8Array;
  /** -peertimeout: seconds a new connection has to complete the handshake. */
  readonly handshakeTimeoutMs: number;
  /** Our height, sent in `version`. */
  readonly startHeight: () => number;
  /** Unix seconds (mocktime aware). */
  readonly now: () => number;
  /** Whether we want transactions (false while in initial block download would be Core's -blocksonly). */
  readonly relay: boolean;
}

export interface PeerHooks {
  /** Both sides' version and verack are through. */
  ready(peer: Peer): void;
  /** A message after the handshake; the next one waits until the returned promise settles. */
  message(peer: Peer, m: Message): Promise<void> | void;
  /** A message after the handshake was read off the wire; `message` gets it when its turn comes. */
  arrived(peer: Peer, m: Message): void;
  /** What was queued for sending has gone out to the socket (its buffer is below the limit again). */
  drained(peer: Peer): void;
  /** The peer broke a protocol rule: the network disconnects and discourages it. */
  misbehaving(peer: Peer, reason: string): void;
  /** `version` arrived: return a reason to refuse the peer (self-connection, old version), or null. */
  checkVersion(peer: Peer, v: VersionPayload): string | null;
  closed(peer: Peer, reason: string): void;
}

/** How the connection came about, as getpeerinfo's connection_type reports it. */
export type ConnectionType = 'inbound' | 'outbound-full-relay' | 'manual';

export interface MessageCounters {
  sent: Map<string, number>;
  received: Map<string, number>;
}

let nextPeerId = 0;

export class Peer {
  readonly id = nextPeerId++;
  /** Our version nonce for this connection; a `version` carrying it back means we reached ourselves. */
  readonly localNonce = randomBytes(8).readBigUInt64LE();
  readonly connectedAt = Date.now();
  version: VersionPayload | null = null;
  private verackReceived = false;
  private isReady = false;
  /** BIP339: the peer announces and requests transactions by wtxid. */
  wtxidRelay = false;
  /** BIP130: announce new blocks with headers rather than inv. */
  preferHeaders = false;
  /** BIP133: the peer's minimum fee rate, satoshis per kvB. */
  feeFilter = 0n;
  bytesSent = 0;
  bytesReceived = 0;
  lastSend = 0;
  lastReceive = 0;
  readonly counters: MessageCounters = { sent: new Map(), received: new Map() };
  /** Round trip of the last answered ping and the best one, in milliseconds. */
  pingMs: number | null = null;
  minPingMs: number | null = null;
  private pingOutstanding: { nonce: bigint; at: number } | null = null;
  private lastPingAt = 0;
  /** Set by the `ping` RPC: send one at the next tick. */
  pingRequested = false;
  private readonly decoder: FrameDecoder;
  private processing: Promise<void> = Promise.resolve();
  private queuedBytes = 0;
  private closedReason: string | null = null;

  constructor(
    private readonly socket: Socket,
    readonly address: NetAddress,
    readonly type: ConnectionType,
    /** What -whitelist grants this peer (config/whitelist.ts). */
    readonly permissions: Permissions,
    private readonly settings: PeerSettings,
    private readonly hooks: PeerHooks,
  ) {
    this.decoder = new FrameDecoder(settings.magic);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('drain', () => this.hooks.drained(this));
    socket.on('error', (err) => this.close(`socket error: ${err.message}`));
    socket.on('close', () => this.close('connection closed by peer'));
    if (type !== 'inbound') this.sendVersion();
  }

  /** Never discouraged or banned, and told of new transactions at once. */
  get noban(): boolean {
    return this.permissions.has('noban');
  }

  get inbound(): boolean {
    return this.type === 'inbound';
  }

  get handshakeDone(): boolean {
    return this.isReady;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Core stops answering getdata for a peer whose unsent data passes -maxsendbuffer. */
  get sendBufferFull(): boolean {
    return this.socket.writableLength > MAX_SEND_BUFFER;
  }

  get localAddress(): { host: string; port: number } {
    return { host: this.socket.localAddress ?? '', port: this.socket.localPort ?? 0 };
  }

  send(m: Message): void {
    this.sendRaw(m.command, encodePayload(m));
  }

  /** A payload already serialized: a stored block as it is on disk, a transaction without witness. */
  sendRaw(command: Command, payload: Uint8Array): void {
    if (this.closed) return;
    const frame = encodeFrame(this.settings.magic, command, payload);
    this.bytesSent += frame.length;
    this.lastSend = Date.now();
    this.counters.sent.set(command, (this.counters.sent.get(command) ?? 0) + frame.length);
    this.socket.write(frame);
  }

  /** Ends the connection; `reason` is logged by the network and shown nowhere else. */
  close(reason: string): void {
    if (this.closed) return;
    this.closedReason = reason;
    this.socket.destroy();
    this.hooks.closed(this, reason);
  }

  /** Timeouts: the handshake, unanswered pings, silence; and the periodic ping. */
  tick(nowMs: number): void {
    if (this.closed) return;
    if (!this.isReady) {
      if (nowMs - this.connectedAt > this.settings.handshakeTimeoutMs) this.close('handshake timeout');
      return;
    }
    if (this.pingOutstanding && nowMs - this.pingOutstanding.at > TIMEOUT_INTERVAL_MS) {
      this.close('ping timeout');
      return;
    }
    if (nowMs - Math.max(this.lastReceive, this.connectedAt) > TIMEOUT_INTERVAL_MS) {
      this.close('inactivity timeout');
      return;
    }
    if (!this.pingOutstanding && (this.pingRequested || nowMs - this.lastPingAt > PING_INTERVAL_MS)) {
      this.pingRequested = false;
      this.lastPingAt = nowMs;
      this.pingOutstanding = { nonce: randomBytes(8).readBigUInt64LE(), at: nowMs };
      this.send({ command: 'ping', nonce: this.pingOutstanding.nonce });
    }
  }

  private sendVersion(): void {
    this.send({
      command: 'version',
      payload: {
        version: PROTOCOL_VERSION,
        services: LOCAL_SERVICES,
        time: BigInt(this.settings.now()),
        addrRecv: this.address,
        addrFrom: { services: LOCAL_SERVICES, host: '0.0.0.0', port: 0 },
        nonce: this.localNonce,
        userAgent: USER_AGENT,
        startHeight: this.settings.startHeight(),
        relay: this.settings.relay,
      },
    });
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.bytesReceived += chunk.length;
    this.lastReceive = Date.now();
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (e) {
      if (!(e instanceof FrameError)) throw e;
      this.hooks.misbehaving(this, e.message);
      return;
    }
    for (const frame of frames) {
      const counted = isKnownCommand(frame.command) ? frame.command : '*other*';
      this.counters.received.set(counted, (this.counters.received.get(counted) ?? 0) + frame.size);
      // Core drops frames with a bad checksum or command and keeps the connection.
      if ('dropped' in frame || !isKnownCommand(frame.command)) continue;
      let m: Message;
      try {
        m = decodePayload(frame.command, frame.payload);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        this.hooks.misbehaving(this, `malformed ${frame.command} message: ${e.message}`);
        return;
      }
      this.enqueue(m, frame.size);
      if (this.closed) return;
    }
  }

  /**
   * Messages are handled one after the other; while more than -maxreceivebuffer bytes wait,
   * reading pauses (TCP pushes back on the sender) instead of buffering without bound.
   */
  private enqueue(m: Message, size: number): void {
    if (!this.isReady) {
      this.handshake(m);
      return;
    }
    this.hooks.arrived(this, m);
    this.queuedBytes += size;
    if (this.queuedBytes > MAX_RECEIVE_BUFFER) this.socket.pause();
    this.processing = this.processing.then(async () => {
      if (!this.closed) await this.handle(m);
      this.queuedBytes -= size;
      if (this.queuedBytes <= MAX_RECEIVE_BUFFER && !this.closed) this.socket.resume();
    });
  }

  private async handle(m: Message): Promise<void> {
    switch (m.command) {
      case 'version':
      case 'verack':
        return; // Core ignores a second version or verack.
      case 'wtxidrelay':
        // BIP339: only between version and verack.
        this.close('wtxidrelay received after verack');
        return;
      case 'ping':
        this.send({ command: 'pong', nonce: m.nonce });
        return;
      case 'pong':
        // A pong that answers nothing, or with another nonce, is ignored (Core's p2p_ping).
        if (this.pingOutstanding && m.nonce === this.pingOutstanding.nonce) {
          const ms = Date.now() - this.pingOutstanding.at;
          this.pingMs = ms;
          this.minPingMs = this.minPingMs === null ? ms : Math.min(this.minPingMs, ms);
          this.pingOutstanding = null;
        }
        return;
      case 'sendheaders':
        this.preferHeaders = true;
        return;
      case 'feefilter':
        if (m.feeRate >= 0n && m.feeRate <= 21_000_000n * 100_000_000n) this.feeFilter = m.feeRate;
        return;
    }
    await this.hooks.message(this, m);
  }

  /** Before verack: only version, wtxidrelay and verack count; anything else is ignored (Core). */
  private handshake(m: Message): void {
    if (m.command === 'version') {
      if (this.version) return;
      const refused =
        m.payload.version < MIN_PEER_PROTO_VERSION ? `protocol version ${m.payload.version} is too old` : this.hooks.checkVersion(this, m.payload);
      if (refused) {
        this.close(refused);
        return;
      }
      this.version = m.payload;
      if (this.inbound) this.sendVersion();
      this.send({ command: 'wtxidrelay' });
      this.send({ command: 'verack' });
    } else if (m.command === 'wtxidrelay') {
      if (this.version) this.wtxidRelay = true;
    } else if (m.command === 'verack') {
      if (!this.version) return;
      this.verackReceived = true;
    }
    if (this.version && this.verackReceived && !this.isReady) {
      this.isReady = true;
      this.send({ command: 'sendheaders' });
      this.hooks.ready(this);
    }
  }
}
