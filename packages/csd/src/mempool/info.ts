import { COIN } from '@cs/consensus';
import { feeRateToCoins } from '../policy/feerate.ts';
import type { MempoolInfo } from './mempool.ts';

/** getmempoolinfo's JSON: amounts in coins (fee rates in coins per kvB) as numbers, the rest as is. */
export function mempoolInfoJson(info: MempoolInfo) {
  return {
    loaded: info.loaded,
    size: info.size,
    bytes: info.bytes,
    usage: info.usage,
    total_fee: Number(info.total_fee) / Number(COIN),
    maxmempool: info.maxmempool,
    mempoolminfee: feeRateToCoins(info.mempoolminfee),
    minrelaytxfee: feeRateToCoins(info.minrelaytxfee),
    incrementalrelayfee: feeRateToCoins(info.incrementalrelayfee),
    unbroadcastcount: info.unbroadcastcount,
    fullrbf: info.fullrbf,
  };
}
