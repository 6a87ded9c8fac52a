/**
 * The address manager: addresses learned from addr messages and from peers we reached, kept in
 * Core's bucket layout so that one source cannot fill the table (an eclipse defence). "New"
 * addresses sit in 1024 buckets of 64, placed by a secret key, the address's group and the group
 * of the peer that told us; addresses we connected to move to 256 "tried" buckets of 64, placed by
 * the key and the address. Persisted as peers.json in the network data directory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readOptionalFile, writeFileAtomic } from '../mempool/files.ts';
import { formatHostPort, isRoutable, netGroup, type NetAddress } from './netaddr.ts';

export const NEW_BUCKETS = 1024;
export const TRIED_BUCKETS = 256;
export const BUCKET_SIZE = 64;
/** getaddr answers with at most 23% of the table and at most 1000 addresses (Core). */
const GETADDR_PERCENT = 23;
const GETADDR_MAX = 1000;
/** An address not heard of for 30 days is dropped when its slot is wanted (Core's IsTerrible horizon). */
const HORIZON_SECONDS = 30 * 24 * 60 * 60;

export interface KnownAddress {
  readonly host: string;
  readonly port: number;
  services: bigint;
  /** Last heard of, Unix seconds. */
  time: number;
  /** Last connection attempt and last success, Unix seconds (0: never). */
  lastTry: number;
  lastSuccess: number;
  attempts: number;
  tried: boolean;
}

interface SavedTable {
  readonly key: string;
  readonly addresses: readonly (Omit<KnownAddress, 'services'> & { services: string; bucket: number; slot: number })[];
}

export class AddressManager {
  private key: Buffer = randomBytes(32);
  private readonly byId = new Map<string, KnownAddress>();
  /** bucket*BUCKET_SIZE + slot → address id, for each table. */
  private readonly newSlots = new Map<number, string>();
  private readonly triedSlots = new Map<number, string>();
  private readonly position = new Map<string, number>();

  constructor(
    private readonly path: string,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /**
   * Adds an address heard from `source` (a peer's host). Only routable addresses are kept; one
   * whose slot is taken by a live address is dropped (Core keeps the incumbent).
   */
  add(a: NetAddress & { readonly time?: number }, source: string): boolean {
    if (!isRoutable(a.host) || a.port === 0) return false;
    const id = formatHostPort(a.host, a.port);
    const known = this.byId.get(id);
    const time = Math.min(a.time ?? this.now(), this.now() + 600);
    if (known) {
      known.time = Math.max(known.time, time);
      known.services |= a.services;
      return false;
    }
    const bucket = this.hash('new', netGroup(a.host), netGroup(source)) % NEW_BUCKETS;
    const pos = bucket * BUCKET_SIZE + (this.hash('slot', id, String(bucket)) % BUCKET_SIZE);
    const incumbent = this.newSlots.get(pos);
    if (incumbent && !this.isTerrible(this.byId.get(incumbent)!)) return false;
    if (incumbent) this.remove(incumbent);
    this.byId.set(id, { host: a.host, port: a.port, services: a.services, time, lastTry: 0, lastSuccess: 0, attempts: 0, tried: false });
    this.newSlots.set(pos, id);
    this.position.set(id, pos);
    return true;
  }

  /** A connection to the address succeeded: it moves to the tried table (evicting a colliding entry back to new). */
  good(host: string, port: number): void {
    const id = formatHostPort(host, port);
    const a = this.byId.get(id);
    if (!a) return;
    a.lastSuccess = this.now();
    a.attempts = 0;
    if (a.tried) return;
    const bucket = this.hash('tried', id) % TRIED_BUCKETS;
    const pos = bucket * BUCKET_SIZE + (this.hash('slot', id, String(bucket)) % BUCKET_SIZE);
    const colliding = this.triedSlots.get(pos);
    if (colliding) this.remove(colliding);
    this.newSlots.delete(this.position.get(id)!);
    a.tried = true;
    this.triedSlots.set(pos, id);
    this.position.set(id, pos);
  }

  attempt(host: string, port: number): void {
    const a = this.byId.get(formatHostPort(host, port));
    if (!a) return;
    a.lastTry = this.now();
    a.attempts++;
  }

  /** An address to try: from tried or new with even odds, skipping those tried in the last 10 minutes. */
  select(exclude: (a: KnownAddress) => boolean): KnownAddress | null {
    const tables = Math.random() < 0.5 ? [this.triedSlots, this.newSlots] : [this.newSlots, this.triedSlots];
    const now = this.now();
    for (const table of tables) {
      const ids = [...table.values()];
      for (let i = 0; i < Math.min(ids.length, 50); i++) {
        const a = this.byId.get(ids[Math.floor(Math.random() * ids.length)])!;
        if (now - a.lastTry > 600 && !exclude(a)) return a;
      }
    }
    return null;
  }

  /** What a getaddr gets: a random 23% of the table (at most 1000), terrible ones left out. */
  sample(): KnownAddress[] {
    const all = [...this.byId.values()].filter((a) => !this.isTerrible(a));
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [all[i], all[j]] = [all[j], all[i]];
    }
    return all.slice(0, Math.min(GETADDR_MAX, Math.ceil((this.byId.size * GETADDR_PERCENT) / 100)));
  }

  async load(): Promise<string | null> {
    const bytes = await readOptionalFile(this.path);
    if (!bytes) return null;
    try {
      const saved = JSON.parse(Buffer.from(bytes).toString('utf8')) as SavedTable;
      const key = Buffer.from(saved.key, 'hex');
      if (key.length !== 32) throw new Error('bad key');
      this.key = key;
      for (const s of saved.addresses) {
        const { bucket, slot, ...rest } = s;
        const id = formatHostPort(s.host, s.port);
        const pos = bucket * BUCKET_SIZE + slot;
        const table = s.tried ? this.triedSlots : this.newSlots;
        if (table.has(pos) || this.byId.has(id)) continue;
        this.byId.set(id, { ...rest, services: BigInt(s.services) });
        table.set(pos, id);
        this.position.set(id, pos);
      }
      return null;
    } catch (err) {
      this.byId.clear();
      this.newSlots.clear();
      this.triedSlots.clear();
      this.position.clear();
      return `peers.json ignored: ${(err as Error).message}`;
    }
  }

  async save(): Promise<void> {
    const addresses = [...this.byId.entries()].map(([id, a]) => {
      const pos = this.position.get(id)!;
      return { ...a, services: a.services.toString(), bucket: Math.floor(pos / BUCKET_SIZE), slot: pos % BUCKET_SIZE };
    });
    const table: SavedTable = { key: this.key.toString('hex'), addresses };
    await writeFileAtomic(this.path, Buffer.from(JSON.stringify(table)));
  }

  private remove(id: string): void {
    const a = this.byId.get(id);
    if (!a) return;
    (a.tried ? this.triedSlots : this.newSlots).delete(this.position.get(id)!);
    this.position.delete(id);
    this.byId.delete(id);
  }

  /** Core's IsTerrible, simplified: not heard of for 30 days, or 3 failed attempts without a success. */
  private isTerrible(a: KnownAddress): boolean {
    const now = this.now();
    return now - a.time > HORIZON_SECONDS || (a.lastSuccess === 0 && a.attempts >= 3);
  }

  private hash(...parts: string[]): number {
    const h = createHash('sha256').update(this.key);
    for (const p of parts) h.update(p).update('\0');
    return h.digest().readUInt32LE(0);
  }
}
