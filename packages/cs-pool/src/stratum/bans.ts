/**
 * Who may connect (docs/pool.md, "Protection"). One offence costs the offender its connection,
 * never its IP: many rigs share one address behind a NAT, and every miner behind cs-bridge or
 * another proxy reaches the pool from the proxy's. An IP is banned for `banTimeMs` only once it
 * has abused repeatedly within `windowMs`: `maxAbuse` connections cut for abuse (a malformed
 * line, too many invalid shares), or `maxRefusedLogins` logins refused. Whitelisted IPs and
 * subnets (trusted proxies) are never banned and not held to the per-IP connection limit.
 */
import { AllowList } from '@cs/runtime/config';

export interface BanConfig {
  readonly banTimeMs: number;
  readonly windowMs: number;
  /** Connections cut for abuse within the window that ban the IP. */
  readonly maxAbuse: number;
  /** Refused logins within the window that ban the IP. */
  readonly maxRefusedLogins: number;
  /** -whitelist subnets. */
  readonly whitelist: readonly string[];
}

export type Strike = 'abuse' | 'login';

/** What an IP did lately: the times of its last strikes of each kind, oldest first (at most the threshold). */
interface Strikes {
  abuse: number[];
  login: number[];
}

export class Bans {
  private readonly whitelist: AllowList;
  private readonly banned = new Map<string, number>();
  private readonly strikes = new Map<string, Strikes>();

  constructor(private readonly config: BanConfig) {
    this.whitelist = new AllowList(config.whitelist, 'whitelist');
  }

  /** A trusted proxy: never banned, no per-IP connection limit. */
  trusted(ip: string): boolean {
    return !this.whitelist.empty && this.whitelist.allows(ip);
  }

  isBanned(ip: string, now: number): boolean {
    const until = this.banned.get(ip);
    return until !== undefined && until > now;
  }

  /**
   * Counts a strike against `ip`; true when it bans the IP now. The strikes that led to a ban are
   * forgotten with it, so an IP comes back with a clean slate.
   */
  strike(ip: string, kind: Strike, now: number): boolean {
    if (this.trusted(ip)) return false;
    let r = this.strikes.get(ip);
    if (!r) {
      r = { abuse: [], login: [] };
      this.strikes.set(ip, r);
    }
    const times = r[kind];
    const limit = kind === 'abuse' ? this.config.maxAbuse : this.config.maxRefusedLogins;
    times.push(now);
    while (times.length > 0 && times[0] <= now - this.config.windowMs) times.shift();
    if (times.length > limit) times.shift();
    if (times.length < limit) return false;
    this.strikes.delete(ip);
    this.banned.set(ip, now + this.config.banTimeMs);
    return true;
  }

  /** Expired bans and strikes out of the window. */
  sweep(now: number): void {
    for (const [ip, until] of this.banned) if (until <= now) this.banned.delete(ip);
    for (const [ip, r] of this.strikes) {
      const recent = (t: number) => t > now - this.config.windowMs;
      r.abuse = r.abuse.filter(recent);
      r.login = r.login.filter(recent);
      if (r.abuse.length === 0 && r.login.length === 0) this.strikes.delete(ip);
    }
  }
}
