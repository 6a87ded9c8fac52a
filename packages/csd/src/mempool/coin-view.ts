import { hashToHex, type OutPoint } from '@cs/consensus';
import type { Coin } from '../chain/coins.ts';
import type { TxPool } from './pool.ts';

/** Height Core gives outputs of unconfirmed transactions (MEMPOOL_HEIGHT): above any real block. */
export const MEMPOOL_HEIGHT = 0x7fffffff;

export interface CoinSource {
  getCoin(p: OutPoint): Coin | undefined;
}

/**
 * Core's CCoinsViewMemPool: outputs of mempool transactions (at MEMPOOL_HEIGHT) over the chain's
 * UTXO set. Outputs some mempool transaction already spends are still visible: a second spender
 * is a conflict, which replacement rules judge, not a missing input.
 */
export class MempoolCoinView implements CoinSource {
  constructor(
    private readonly chain: CoinSource,
    private readonly pool: TxPool,
  ) {}

  getCoin(p: OutPoint): Coin | undefined {
    const entry = this.pool.get(hashToHex(p.txid));
    if (entry) {
      const out = entry.tx.outputs[p.vout];
      if (!out) return undefined;
      return { value: out.value, scriptPubKey: out.scriptPubKey, height: MEMPOOL_HEIGHT, coinbase: false };
    }
    return this.chain.getCoin(p);
  }
}
