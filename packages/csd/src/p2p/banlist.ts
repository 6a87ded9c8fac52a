/**
 * Bans (setban, persisted in banlist.json in the network data directory) and discouragement
 * (misbehaving peers' addresses, kept in memory until restart as Core keeps them).
 */
import { parseSubnet } from '@cs/runtime/config';
import { readOptionalFile, writeFileAtomic } from '../mempool/files.ts';
import { AllowList } from '../rpc/allowip.ts';

export interface Ban {
  /** Normalized subnet: address/prefix. */
  readonly subnet: string;
  /** Unix seconds. */
  readonly created: number;
  readonly until: number;
}

/** Core's DEFAULT_MISBEHAVING_BANTIME: -bantime's default, 24 hours. */
export const DEFAULT_BANTIME = 24 * 60 * 60;
/** Discouraged addresses remembered at most (Core keeps them in a 50,000-entry rolling filter). */
const MAX_DISCOURAGED = 50_000;

/** A discouraged address: when and why (the first misbehaviour; later ones only move it to the end). */
export interface Discouragement {
  readonly host: string;
  /** Unix seconds. */
  readonly since: number;
  readonly reason: string;
}

export class BanList {
  private readonly bans = new Map<string, { ban: Ban; matcher: AllowList }>();
  /** In insertion order, the oldest first out when full. */
  private readonly discouraged = new Map<string, Discouragement>();

  constructor(
    private readonly path: string,
    private readonly now: () => number,
  ) {}

  /** Reads banlist.json; a missing or unreadable file starts an empty list (the reason is returned for the log). */
  async load(): Promise<string | null> {
    const bytes = await readOptionalFile(this.path);
    if (!bytes) return null;
    try {
      const saved = JSON.parse(Buffer.from(bytes).toString('utf8')) as { bans: Ban[] };
      for (const b of saved.bans) if (typeof b.subnet === 'string') this.put(b);
      return null;
    } catch (err) {
      return `banlist.json ignored: ${(err as Error).message}`;
    }
  }

  async save(): Promise<void> {
    this.sweep();
    await writeFileAtomic(this.path, Buffer.from(JSON.stringify({ bans: this.list() }, null, 1)));
  }

  /** Normalizes a subnet as setban takes it; null when it is not an address or subnet. */
  static normalize(text: string): string | null {
    const parsed = parseSubnet(text);
    return parsed ? `${parsed.address}/${parsed.prefix}` : null;
  }

  /** Returns false when the subnet was already banned (setban's "IP/Subnet already banned"). */
  ban(subnet: string, until: number): boolean {
    this.sweep();
    if (this.bans.has(subnet)) return false;
    this.put({ subnet, created: this.now(), until });
    return true;
  }

  unban(subnet: string): boolean {
    return this.bans.delete(subnet);
  }

  clear(): void {
    this.bans.clear();
    this.discouraged.clear();
  }

  isBanned(host: string): boolean {
    const now = this.now();
    for (const { ban, matcher } of this.bans.values()) if (ban.until > now && matcher.allows(host)) return true;
    return false;
  }

  list(): Ban[] {
    this.sweep();
    return [...this.bans.values()].map((b) => b.ban);
  }

  discourage(host: string, reason: string): void {
    const known = this.discouraged.get(host);
    this.discouraged.delete(host);
    if (this.discouraged.size >= MAX_DISCOURAGED) this.discouraged.delete(this.discouraged.keys().next().value!);
    this.discouraged.set(host, known ?? { host, since: this.now(), reason });
  }

  /** The discouraged addresses, oldest first. */
  discouragements(): Discouragement[] {
    return [...this.discouraged.values()];
  }

  isDiscouraged(host: string): boolean {
    return this.discouraged.has(host);
  }

  private put(ban: Ban): void {
    this.bans.set(ban.subnet, { ban, matcher: new AllowList([ban.subnet]) });
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, { ban }] of this.bans) if (ban.until <= now) this.bans.delete(k);
  }
}
