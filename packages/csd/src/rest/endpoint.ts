/** What each REST endpoint declares, and what it is given per request. */
import type { JsonValue } from '../format/json-value.ts';
import type { AddressIndex } from '../indexes/address-index.ts';
import type { TransactionIndex } from '../indexes/tx-index.ts';
import type { ChainContext } from '../rpc/context.ts';
import type { RawBlockCache } from './block-cache.ts';
import type { RestFormat } from './format.ts';
import type { RateGroup } from './rate-limits.ts';
import type { RestReply } from './reply.ts';

export interface RestRequest {
  /** Path segments after the endpoint's name, format suffix removed: `/rest/headers/5/<hash>.bin` → ['5', '<hash>']. */
  readonly args: readonly string[];
  readonly format: RestFormat;
  readonly query: URLSearchParams;
}

export interface Endpoint {
  readonly group: RateGroup;
  /** The formats it can give, in the order the "output format not found" error lists them. */
  readonly formats: readonly RestFormat[];
  /** Answers, or throws RestError. */
  handle(request: RestRequest): RestReply | Promise<RestReply>;
}

/** What the endpoints may use of a running node: the chain's context and the indexes, which they read directly. */
export interface RestContext extends ChainContext {
  /** -txindex (on by default): /rest/tx finds confirmed transactions by txid alone. */
  readonly txIndex?: TransactionIndex;
  /** -addressindex (on by default): activity by address, behind /rest/address. */
  readonly addressIndex?: AddressIndex;
}

/** What endpoints may use of the node. */
export interface RestDeps {
  readonly ctx: RestContext;
  /** Stored blocks, through the cache of recently served ones. */
  readonly blocks: RawBlockCache;
  /**
   * Runs an RPC method and returns its result. Core's REST answers chaininfo with
   * getblockchaininfo itself; csd does the same (and answers mempool contents with
   * getrawmempool), so both interfaces give identical objects.
   */
  readonly callRpc: (method: string, params: readonly JsonValue[]) => Promise<JsonValue>;
}

export const ALL_FORMATS: readonly RestFormat[] = ['json', 'bin', 'hex'];
export const JSON_ONLY: readonly RestFormat[] = ['json'];
