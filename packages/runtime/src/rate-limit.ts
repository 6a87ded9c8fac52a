/**
 * A per-client request budget with fixed windows: a client's first request opens a window of
 * `windowMs` (one minute) that admits `limit` requests; the next request after it ends opens a
 * new one. Fixed windows cost one counter per client and an O(1) check; the price is that a
 * client may fit up to 2 × limit requests around a window boundary, acceptable for a limit that
 * is there to stop runaway scripts, not to meter precisely.
 *
 * Memory stays bounded: clients sit in a Map in the order their windows opened, so expired ones
 * are dropped from its front as time passes, and past `maxClients` the oldest window is dropped.
 * Shared by JSON-RPC, REST and WebSocket, each with its own instance and limit.
 */
export interface RateLimiterOptions {
  /** Requests per window; 0 turns the limit off. */
  readonly limit: number;
  readonly windowMs?: number;
  /** Clients tracked at once; past it the longest-tracked client is forgotten (its budget starts afresh). */
  readonly maxClients?: number;
  /** Monotonic milliseconds; injectable for tests. */
  readonly now?: () => number;
}

interface Window {
  readonly start: number;
  count: number;
}

export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #clients = new Map<string, Window>();
  /** When the oldest tracked window ends: until then there is nothing to expire. */
  #nextExpiry = Infinity;

  constructor(options: RateLimiterOptions) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 0) throw new Error('rate limit must be a non-negative integer');
    this.#limit = options.limit;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? performance.now.bind(performance);
  }

  /** Counts a request from `client`; false when its budget for the current window is spent. */
  tryTake(client: string): boolean {
    if (this.#limit === 0) return true;
    const now = this.#now();
    if (now >= this.#nextExpiry) this.#expire(now);
    const window = this.#clients.get(client);
    if (window !== undefined) {
      if (window.count >= this.#limit) return false;
      window.count++;
      return true;
    }
    if (this.#clients.size >= this.#maxClients) {
      this.#clients.delete(this.#clients.keys().next().value as string);
      this.#nextExpiry = this.#oldestEnd();
    }
    if (this.#clients.size === 0) this.#nextExpiry = now + this.#windowMs;
    this.#clients.set(client, { start: now, count: 1 });
    return true;
  }

  /** Whole seconds until `client` gets a fresh budget, for Retry-After (at least 1). */
  retryAfterSeconds(client: string): number {
    const window = this.#clients.get(client);
    if (window === undefined) return 1;
    return Math.max(1, Math.ceil((window.start + this.#windowMs - this.#now()) / 1000));
  }

  /** Clients currently tracked: bounded by maxClients, and by expiry. */
  get size(): number {
    return this.#clients.size;
  }

  #expire(now: number): void {
    // Windows are inserted as they open, so the Map's front holds the oldest: stop at the first live one.
    for (const [client, window] of this.#clients) {
      if (window.start + this.#windowMs > now) break;
      this.#clients.delete(client);
    }
    this.#nextExpiry = this.#oldestEnd();
  }

  #oldestEnd(): number {
    for (const window of this.#clients.values()) return window.start + this.#windowMs;
    return Infinity;
  }
}
