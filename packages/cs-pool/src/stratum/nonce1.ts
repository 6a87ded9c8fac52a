/**
 * NONCE_1 values and subscribe sessions. NONCE_1 is 4 bytes (NONCE_2 gets 28, s-nomp's split;
 * ccminer refuses more than 12): one instance byte, so that front-ends sharing a database never
 * hand out the same value, then a 24-bit counter that skips values in use. The session id is the
 * NONCE_1 in hex; a disconnected session is kept for a while, and a miner that offers its id back
 * in mining.subscribe gets the same NONCE_1 (ZIP 301's resume). An unknown id gets a new one.
 */
import { randomInt } from 'node:crypto';

export interface Session {
  readonly sessionId: string;
  readonly nonce1: Uint8Array;
}

export const NONCE1_BYTES = 4;

export class Nonce1Allocator {
  private readonly live = new Set<string>();
  /** Released sessions: id -> expiry (ms). */
  private readonly parked = new Map<string, number>();
  private counter = randomInt(0, 1 << 24);

  constructor(private readonly instance = randomInt(0, 256)) {}

  acquire(resume: string | null, now: number): Session {
    if (resume !== null && !this.live.has(resume)) {
      const expires = this.parked.get(resume);
      if (expires !== undefined && expires > now) {
        this.parked.delete(resume);
        this.live.add(resume);
        return { sessionId: resume, nonce1: Buffer.from(resume, 'hex') };
      }
    }
    for (let tries = 0; tries < 1 << 24; tries++) {
      this.counter = (this.counter + 1) & 0xffffff;
      const id = ((this.instance << 24) | this.counter) >>> 0;
      const hex = id.toString(16).padStart(8, '0');
      if (this.live.has(hex) || this.parked.has(hex)) continue;
      this.live.add(hex);
      return { sessionId: hex, nonce1: Buffer.from(hex, 'hex') };
    }
    throw new Error('every NONCE_1 of this instance is in use');
  }

  release(sessionId: string, expires: number): void {
    this.live.delete(sessionId);
    this.parked.set(sessionId, expires);
  }

  /** A new NONCE_1 for a live connection (mining.set_extranonce); the old one is free at once. */
  rotate(sessionId: string, now: number): Session {
    this.live.delete(sessionId);
    return this.acquire(null, now);
  }

  expire(now: number): void {
    for (const [id, expires] of this.parked) if (expires <= now) this.parked.delete(id);
  }
}
