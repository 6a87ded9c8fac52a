import { uuidOf } from '../opoi/json.ts';
import { ProtocolError, type Request, type WatchedAddress } from './protocol.ts';

/** Clients watching one output script, and the script's canonical address. */
export interface Watchers<C> {
  readonly address: string;
  readonly clients: ReadonlySet<C>;
}

/**
 * Who is subscribed to what, indexed for the pushes: a set per channel, and for address-tx a map
 * from output script to its watchers, so that matching a transaction costs one lookup per
 * output and input whatever the number of clients. Generic over the client handle, so it knows
 * nothing of sockets.
 */
export class SubscriptionTable<C> {
  readonly #newBlocks = new Set<C>();
  readonly #mempool = new Set<C>();
  readonly #byScript = new Map<string, { readonly address: string; readonly clients: Set<C> }>();
  /** Each client's watched scripts, to enforce the limit and to clean up when it leaves. */
  readonly #scriptsOf = new Map<C, Set<string>>();
  /** opoi without a request_id: every step. */
  readonly #opoiAll = new Set<C>();
  /** opoi with a request_id: request id (32 hex digits) → its watchers, and each client's ids. */
  readonly #byRequest = new Map<string, Set<C>>();
  readonly #requestsOf = new Map<C, Set<string>>();

  constructor(
    /** Addresses one client may watch at once. */
    readonly maxAddressesPerClient: number,
    /** OPoI requests one client may watch at once (an unfiltered opoi subscription is one switch). */
    readonly maxRequestsPerClient: number = maxAddressesPerClient,
  ) {}

  /** Applies a subscribe or unsubscribe; throws ProtocolError when it cannot. */
  apply(client: C, request: Request): void {
    const channelSet = request.channel === 'new-blocks' ? this.#newBlocks : request.channel === 'mempool' ? this.#mempool : null;
    if (channelSet) {
      if (request.action === 'subscribe') {
        channelSet.add(client);
      } else if (!channelSet.delete(client)) {
        throw new ProtocolError('not-subscribed', `Not subscribed to ${request.channel}`);
      }
      return;
    }
    if (request.channel === 'opoi') {
      if (request.requestId !== null) return this.#applyRequest(client, request.action, request.requestId);
      if (request.action === 'subscribe') this.#opoiAll.add(client);
      else if (!this.#opoiAll.delete(client)) throw new ProtocolError('not-subscribed', 'Not subscribed to opoi');
      return;
    }
    if (request.channel !== 'address-tx') return;
    if (request.action === 'subscribe') this.#watch(client, request.address);
    else this.#unwatch(client, request.address);
  }

  #applyRequest(client: C, action: Request['action'], id: string): void {
    const ids = this.#requestsOf.get(client) ?? new Set<string>();
    if (action === 'unsubscribe') {
      if (!ids.delete(id)) throw new ProtocolError('not-subscribed', `Not subscribed to opoi for request ${uuidOf(id)}`);
      if (ids.size === 0) this.#requestsOf.delete(client);
      this.#dropRequestWatcher(id, client);
      return;
    }
    if (ids.has(id)) return;
    if (ids.size >= this.maxRequestsPerClient) {
      throw new ProtocolError('too-many-subscriptions', `Too many OPoI request subscriptions: at most ${this.maxRequestsPerClient} per connection`);
    }
    ids.add(id);
    this.#requestsOf.set(client, ids);
    const watchers = this.#byRequest.get(id) ?? new Set<C>();
    watchers.add(client);
    this.#byRequest.set(id, watchers);
  }

  #dropRequestWatcher(id: string, client: C): void {
    const watchers = this.#byRequest.get(id);
    if (!watchers) return;
    watchers.delete(client);
    if (watchers.size === 0) this.#byRequest.delete(id);
  }

  #watch(client: C, watched: WatchedAddress): void {
    const scripts = this.#scriptsOf.get(client) ?? new Set<string>();
    if (scripts.has(watched.script)) return;
    if (scripts.size >= this.maxAddressesPerClient) {
      throw new ProtocolError('too-many-subscriptions', `Too many address subscriptions: at most ${this.maxAddressesPerClient} per connection`);
    }
    scripts.add(watched.script);
    this.#scriptsOf.set(client, scripts);
    const watchers = this.#byScript.get(watched.script) ?? { address: watched.address, clients: new Set<C>() };
    watchers.clients.add(client);
    this.#byScript.set(watched.script, watchers);
  }

  #unwatch(client: C, watched: WatchedAddress): void {
    const scripts = this.#scriptsOf.get(client);
    if (!scripts?.delete(watched.script)) {
      throw new ProtocolError('not-subscribed', `Not subscribed to address-tx for ${watched.address}`);
    }
    if (scripts.size === 0) this.#scriptsOf.delete(client);
    this.#dropWatcher(watched.script, client);
  }

  #dropWatcher(script: string, client: C): void {
    const watchers = this.#byScript.get(script);
    if (!watchers) return;
    watchers.clients.delete(client);
    if (watchers.clients.size === 0) this.#byScript.delete(script);
  }

  /** Forgets every subscription of a client that left. */
  remove(client: C): void {
    this.#newBlocks.delete(client);
    this.#mempool.delete(client);
    for (const script of this.#scriptsOf.get(client) ?? []) this.#dropWatcher(script, client);
    this.#scriptsOf.delete(client);
    this.#opoiAll.delete(client);
    for (const id of this.#requestsOf.get(client) ?? []) this.#dropRequestWatcher(id, client);
    this.#requestsOf.delete(client);
  }

  get newBlocks(): ReadonlySet<C> {
    return this.#newBlocks;
  }

  get mempool(): ReadonlySet<C> {
    return this.#mempool;
  }

  /** Whether any client watches any address: when none does, transactions need not be looked at. */
  get watchesAddresses(): boolean {
    return this.#byScript.size > 0;
  }

  /** Whether any client is subscribed to opoi at all. */
  get watchesOpoi(): boolean {
    return this.#opoiAll.size > 0 || this.#byRequest.size > 0;
  }

  /** Who gets an OPoI step of a request (32 hex digits; null for stake steps): the unfiltered, and that request's watchers. */
  opoiRecipients(requestId: string | null): Set<C> {
    const to = new Set(this.#opoiAll);
    const watchers = requestId === null ? undefined : this.#byRequest.get(requestId);
    for (const c of watchers ?? []) to.add(c);
    return to;
  }

  /** The watchers of an output script (hex), if any. */
  watchers(script: string): Watchers<C> | undefined {
    return this.#byScript.get(script);
  }
}
