/**
 * REST rate limits per client address, one budget per endpoint group (the interface document's
 * per-endpoint table, which DECISIONS.md takes as the rule): `restratelimit` requests per minute
 * (default 200) for each of chaininfo, block, tx, headers, getutxos, blockhashbyheight and opoi, and
 * half of it (default 100) for each of address and mempool, which the document limits to 100
 * where the others get 200. 0 turns every limit off.
 */
import { RateLimiter } from '@cs/runtime/rate-limit';

export type RateGroup = 'chaininfo' | 'block' | 'tx' | 'headers' | 'getutxos' | 'blockhashbyheight' | 'opoi' | 'address' | 'mempool';

/** Groups the document gives the narrower limit (100 where the others get 200). */
const HALF_RATE: ReadonlySet<RateGroup> = new Set(['address', 'mempool']);
const WINDOW_MS = 60_000;

export class RestRateLimits {
  readonly #limit: number;
  readonly #now: (() => number) | undefined;
  readonly #limiters = new Map<RateGroup, RateLimiter>();

  /** `limit`: restratelimit; `now`: monotonic milliseconds (tests move it by hand). */
  constructor(limit: number, now?: () => number) {
    this.#limit = limit;
    this.#now = now;
  }

  /** Requests per minute for a group: half of restratelimit rounded up, so that 1 does not become 0 (off). */
  #limitOf(group: RateGroup): number {
    return HALF_RATE.has(group) ? Math.ceil(this.#limit / 2) : this.#limit;
  }

  /** Counts a request; false when the client's budget for the group is spent. */
  tryTake(group: RateGroup, client: string): boolean {
    return this.#limiter(group).tryTake(client);
  }

  retryAfterSeconds(group: RateGroup, client: string): number {
    return this.#limiter(group).retryAfterSeconds(client);
  }

  #limiter(group: RateGroup): RateLimiter {
    let limiter = this.#limiters.get(group);
    if (limiter === undefined) {
      limiter = new RateLimiter({ limit: this.#limitOf(group), windowMs: WINDOW_MS, now: this.#now });
      this.#limiters.set(group, limiter);
    }
    return limiter;
  }
}
