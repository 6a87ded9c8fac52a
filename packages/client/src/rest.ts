/**
 * Client of csd's REST interface (`-rest`, docs/rest.md): one method per endpoint, JSON answers
 * typed as the RPC methods that produce the same objects (chaininfo is getblockchaininfo, tx is
 * getrawtransaction's verbose object, ...), binary forms as bytes. A status other than 200 is a
 * RestError carrying the status and csd's message (its `{"error": ...}` body).
 */
import type { RpcResult } from './client.ts';

/** csd answered with an error status (400 bad input, 404 unknown, 501 index disabled, 503 warming up or catching up, 429 rate limit). */
export class RestError extends Error {
  override readonly name = 'RestError';
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export interface RestClientOptions {
  /** http://host:rpcport (REST shares the RPC port). */
  readonly url: string;
  readonly timeoutMs?: number;
}

/** getblock's verbosity-1 object, as `/rest/block/<hash>.json` answers it (txids, not transactions). */
export type RestBlock = Extract<RpcResult<'getblock'>, { readonly tx: readonly string[] }>;
export type RestHeader = Exclude<RpcResult<'getblockheader'>, string>;
export type RestTransaction = Exclude<RpcResult<'getrawtransaction'>, string | null>;
export type RestOpoiRequest = RpcResult<'getopoirequest'>;
export type RestOpoiAudit = RpcResult<'getopoiaudit'>;
export type RestModelManifest = RpcResult<'getmodelmanifest'>;

/** The interface document's Address object (docs/rest.md, "address"), spelled as it is. */
export interface RestAddress {
  readonly address: string;
  readonly balance: number;
  readonly totalReceived: number;
  readonly totalSent: number;
  readonly unconfirmedBalance: number;
  readonly txApperances: number;
  readonly unconfirmedTxApperances: number;
  /** One page, newest first: items `from` to `to` (exclusive) of `totalItems`. */
  readonly transactions: readonly string[];
  readonly totalItems: number;
  readonly from: number;
  readonly to: number;
}

export interface RestUtxos {
  readonly chainHeight: number;
  readonly chaintipHash: string;
  /** One `0`/`1` per asked outpoint, in order. */
  readonly bitmap: string;
  readonly utxos: readonly {
    readonly height: number;
    readonly value: number;
    readonly scriptPubKey: { readonly asm: string; readonly hex: string; readonly address?: string; readonly type: string };
  }[];
}

export interface RestOpoiPage {
  readonly total: number;
  readonly from: number;
  readonly count: number;
  readonly requests: readonly RestOpoiRequest[];
}

export interface OutPointRef {
  readonly txid: string;
  readonly vout: number;
}

export class RestClient {
  private readonly base: string;

  constructor(private readonly opts: RestClientOptions) {
    this.base = opts.url.replace(/\/+$/, '');
  }

  chainInfo(): Promise<RpcResult<'getblockchaininfo'>> {
    return this.json('/rest/chaininfo.json');
  }

  block(hash: string): Promise<RestBlock> {
    return this.json(`/rest/block/${hash}.json`);
  }

  /** The block's serialization (header, solution, transactions with witnesses). */
  blockBytes(hash: string): Promise<Uint8Array> {
    return this.bytes(`/rest/block/${hash}.bin`);
  }

  /** Up to `count` headers (1 to 2000) from `hash` along the active chain; [] for a block off it. */
  headers(hash: string, count = 5): Promise<RestHeader[]> {
    return this.json(`/rest/headers/${hash}.json?count=${count}`);
  }

  async blockHashByHeight(height: number): Promise<string> {
    return (await this.json<{ blockhash: string }>(`/rest/blockhashbyheight/${height}.json`)).blockhash;
  }

  tx(txid: string): Promise<RestTransaction> {
    return this.json(`/rest/tx/${txid}.json`);
  }

  txBytes(txid: string): Promise<Uint8Array> {
    return this.bytes(`/rest/tx/${txid}.bin`);
  }

  /** An address with one page of its transactions (csd's default page when `page` is not given). */
  address(address: string, page?: { from?: number; to?: number }): Promise<RestAddress> {
    const query = new URLSearchParams();
    if (page?.from !== undefined) query.set('from', String(page.from));
    if (page?.to !== undefined) query.set('to', String(page.to));
    const suffix = query.size > 0 ? `?${query}` : '';
    return this.json(`/rest/address/${encodeURIComponent(address)}.json${suffix}`);
  }

  mempoolInfo(): Promise<RpcResult<'getmempoolinfo'>> {
    return this.json('/rest/mempool/info.json');
  }

  /** The mempool's entries by txid (getrawmempool verbose). */
  mempoolContents(): Promise<{ readonly [txid: string]: RpcResult<'getmempoolentry'> }> {
    return this.json('/rest/mempool/contents.json');
  }

  /** BIP64: which of the outpoints (at most 15) are unspent, counting the mempool when asked. */
  utxos(outpoints: readonly OutPointRef[], checkMempool = false): Promise<RestUtxos> {
    const list = outpoints.map((o) => `${o.txid}-${o.vout}`).join('/');
    return this.json(`/rest/getutxos/${checkMempool ? 'checkmempool/' : ''}${list}.json`);
  }

  opoiRequest(requestId: string): Promise<RestOpoiRequest> {
    return this.json(`/rest/opoi/request/${encodeURIComponent(requestId)}.json`);
  }

  opoiRequests(
    query: {
      readonly status?: 'PENDING' | 'PUBLISHING' | 'AUDITING' | 'FULFILLED' | 'REJECTED' | 'EXPIRED';
      readonly from?: number;
      readonly count?: number;
    } = {},
  ): Promise<RestOpoiPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const q = params.size > 0 ? `?${params}` : '';
    return this.json(`/rest/opoi/requests.json${q}`);
  }

  /** The audit of a VERIFIABLE request whose answer was published (404 otherwise). */
  opoiAudit(requestId: string): Promise<RestOpoiAudit> {
    return this.json(`/rest/opoi/audit/${encodeURIComponent(requestId)}.json`);
  }

  /** A registered model manifest (404 for an id without one). */
  modelManifest(modelId: string): Promise<RestModelManifest> {
    return this.json(`/rest/opoi/manifest/${encodeURIComponent(modelId)}.json`);
  }

  /** The registered model manifests, oldest first. */
  modelManifests(): Promise<readonly RestModelManifest[]> {
    return this.json('/rest/opoi/manifests.json');
  }

  private async json<T>(path: string): Promise<T> {
    const res = await this.get(path);
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RestError(res.status, `${path}: the answer is not JSON`, path);
    }
  }

  private async bytes(path: string): Promise<Uint8Array> {
    return new Uint8Array(await (await this.get(path)).arrayBuffer());
  }

  private async get(path: string): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000) });
    } catch (e) {
      throw new RestError(0, `cannot reach the node at ${this.base}: ${(e as Error).message}`, path);
    }
    if (res.status !== 200) throw new RestError(res.status, errorMessage(await res.text()), path);
    return res;
  }
}

/** csd's `{"error": "..."}`, or the body itself from something else on the port. */
function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: fall through to the text
  }
  return body.trim();
}
