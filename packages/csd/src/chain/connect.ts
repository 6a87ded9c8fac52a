import {
  MAX_BLOCK_SIGOPS_COST,
  ValidationError,
  blockSubsidy,
  getTransactionSigOpCost,
  isUnspendable,
  moneyRange,
  outpointKey,
  type Block,
  type ChainParams,
  type OutPoint,
  type Transaction,
  type TxOut,
} from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';
import { coinFromOutput, coinKey, type Coin } from './coins.ts';
import type { BlockUndo } from './undo.ts';

/** Read access to the UTXO set as of the block's parent. */
export interface CoinSource {
  getCoin(p: OutPoint): Coin | undefined;
}

/** Everything applying a block changes, computed before anything is written. */
export interface ConnectPlan {
  readonly undo: BlockUndo;
  /** Keys of coins that existed before the block and are now spent. */
  readonly spentKeys: Buffer[];
  /** Coins the block creates that are still unspent at its end. */
  readonly created: { key: Buffer; coin: Coin }[];
  /** spentOutputs[t][i]: the output spent by input i of transaction t (empty for the coinbase). */
  readonly spentOutputs: TxOut[][];
  readonly fees: bigint;
}

// BIP68 sequence fields.
const SEQUENCE_DISABLE_FLAG = 0x80000000;
const SEQUENCE_TYPE_FLAG = 0x00400000;
const SEQUENCE_MASK = 0x0000ffff;
const SEQUENCE_GRANULARITY = 9;

/**
 * Core's ConnectBlock minus the scripts: inputs exist and are unspent, coinbases are mature,
 * amounts are in range, relative lock-times (BIP68) hold, the sigop cost fits and the coinbase
 * claims no more than subsidy plus fees. Scripts are checked separately (ScriptVerifier) with
 * the spent outputs this returns. `entry` is the index entry of the block being connected.
 */
export function planConnect(block: Block, entry: BlockIndexEntry, coins: CoinSource, params: ChainParams, flags: number): ConnectPlan {
  const height = entry.height;
  const prevMtp = entry.prev ? entry.prev.medianTimePast() : 0;
  const inBlock = new Map<string, { key: Buffer; coin: Coin }>();
  const spentKeys: Buffer[] = [];
  const spentFromSet = new Set<string>();
  const undo: BlockUndo = [];
  const spentOutputs: TxOut[][] = [];
  let fees = 0n;
  let sigopCost = 0;

  for (const tx of block.txs) {
    const coinbase = tx.isCoinbase();
    const spent: Coin[] = [];
    if (!coinbase) {
      let valueIn = 0n;
      for (const input of tx.inputs) {
        const k = outpointKey(input.prevout);
        let coin: Coin | undefined;
        const created = inBlock.get(k);
        if (created) {
          coin = created.coin;
          inBlock.delete(k);
        } else if (!spentFromSet.has(k)) {
          coin = coins.getCoin(input.prevout);
          if (coin) {
            spentFromSet.add(k);
            spentKeys.push(coinKey(input.prevout));
          }
        }
        if (!coin) {
          throw new ValidationError('bad-txns-inputs-missingorspent', `tx ${tx.txidHex} input ${k} missing or spent`);
        }
        if (coin.coinbase && height - coin.height < params.coinbaseMaturity) {
          throw new ValidationError('bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${height - coin.height}`);
        }
        valueIn += coin.value;
        if (!moneyRange(coin.value) || !moneyRange(valueIn)) throw new ValidationError('bad-txns-inputvalues-outofrange');
        spent.push(coin);
      }
      const valueOut = tx.outputs.reduce((s, o) => s + o.value, 0n);
      if (valueIn < valueOut) throw new ValidationError('bad-txns-in-belowout', `value in ${valueIn} < value out ${valueOut}`);
      fees += valueIn - valueOut;
      if (!moneyRange(fees)) throw new ValidationError('bad-txns-fee-outofrange');
      checkSequenceLocks(tx, spent, entry, prevMtp);
      undo.push(spent);
    }
    const spentTxOuts = spent.map((c) => ({ value: c.value, scriptPubKey: c.scriptPubKey }));
    spentOutputs.push(spentTxOuts);
    sigopCost += getTransactionSigOpCost(tx, spentTxOuts.map((o) => o.scriptPubKey), flags);
    if (sigopCost > MAX_BLOCK_SIGOPS_COST) throw new ValidationError('bad-blk-sigops', 'too many sigops');

    tx.outputs.forEach((out, vout) => {
      // Provably unspendable outputs never enter the UTXO set (Core's AddCoins).
      if (isUnspendable(out.scriptPubKey)) return;
      const p = { txid: tx.txid, vout };
      inBlock.set(outpointKey(p), { key: coinKey(p), coin: coinFromOutput(out, height, coinbase) });
    });
  }

  const claimed = block.txs[0].outputs.reduce((s, o) => s + o.value, 0n);
  const allowed = blockSubsidy(height, params) + fees;
  if (claimed > allowed) throw new ValidationError('bad-cb-amount', `coinbase pays too much (actual=${claimed} vs limit=${allowed})`);

  return { undo, spentKeys, created: [...inBlock.values()], spentOutputs, fees };
}

/**
 * BIP68: for version >= 2 transactions, each input whose sequence does not disable it must wait
 * a number of blocks, or of 512-second units of median time past, after the block that created
 * the coin it spends.
 */
function checkSequenceLocks(tx: Transaction, spent: readonly Coin[], entry: BlockIndexEntry, prevMtp: number): void {
  if (tx.version < 2) return;
  let minHeight = -1;
  let minTime = -1;
  tx.inputs.forEach((input, i) => {
    const seq = input.sequence;
    if (seq & SEQUENCE_DISABLE_FLAG) return;
    const coinHeight = spent[i].height;
    if (seq & SEQUENCE_TYPE_FLAG) {
      // Time locks count from the median time past of the block before the coin's block.
      const base = entry.ancestor(Math.max(coinHeight - 1, 0));
      const coinTime = base ? base.medianTimePast() : 0;
      minTime = Math.max(minTime, coinTime + ((seq & SEQUENCE_MASK) << SEQUENCE_GRANULARITY) - 1);
    } else {
      minHeight = Math.max(minHeight, coinHeight + (seq & SEQUENCE_MASK) - 1);
    }
  });
  if (minHeight >= entry.height || minTime >= prevMtp) {
    throw new ValidationError('bad-txns-nonfinal', 'non-BIP68-final transaction');
  }
}
