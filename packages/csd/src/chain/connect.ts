import {
  MAX_BLOCK_SIGOPS_COST,
  ValidationError,
  blockSubsidy,
  getTransactionSigOpCost,
  isUnspendable,
  hashToHex,
  moneyRange,
  type Block,
  type ChainParams,
  type Transaction,
  type TxOut,
} from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';
import { coinFromOutput, writeCoinKey, type Coin } from './coins.ts';
import { sequenceLocks, sequenceLocksSatisfied } from './sequence-locks.ts';
import type { BlockUndo } from './undo.ts';

/** Scratch key for lookups: the source copies what it keeps (as a latin1 string). */
const lookupKey = Buffer.alloc(36);

/** Read access to the UTXO set as of the block's parent. */
export interface CoinSource {
  /** The unspent coin stored under `key` (a coinKey; `id` is the same key read as latin1), if any. */
  getCoinByKey(key: Uint8Array, id: string): Coin | undefined;
}

/** Everything applying a block changes, computed before anything is written. */
export interface ConnectPlan {
  readonly undo: BlockUndo;
  /** Coins that existed before the block and are now spent, in block order: their keys read as latin1. */
  readonly spent: ReadonlySet<string>;
  /** Coins the block creates that are still unspent at its end, under their keys read as latin1. */
  readonly created: ReadonlyMap<string, Coin>;
  readonly fees: bigint;
}

/** Where a block goes: its height and its parent (an index entry, or the one it would have). */
export type BlockPlace = Pick<BlockIndexEntry, 'height' | 'prev'>;

/** Receives each transaction with the outputs its inputs spend, as soon as they are known. */
export type SpentOutputsSink = (tx: Transaction, txIndex: number, spent: readonly TxOut[]) => void;

/**
 * Core's ConnectBlock minus the scripts: inputs exist and are unspent, coinbases are mature,
 * amounts are in range, relative lock-times (BIP68) hold, the sigop cost fits and the coinbase
 * claims no more than subsidy plus fees. Scripts are checked by whoever `onSpent` hands the
 * transactions to (the script verifier), while this goes on with the next transaction.
 * `entry` is where the block goes: its index entry, or the place it would have on top of a parent.
 */
export function planConnect(
  block: Block,
  entry: BlockPlace,
  coins: CoinSource,
  params: ChainParams,
  flags: number,
  onSpent: SpentOutputsSink,
): ConnectPlan {
  const height = entry.height;
  const parent = entry.prev;
  if (!parent) throw new Error('the genesis block is never connected through planConnect');
  // Keyed by the coin key read as latin1: one character per byte, the cheapest string of it.
  const inBlock = new Map<string, Coin>();
  const spentFromSet = new Set<string>();
  const undo: BlockUndo = [];
  let fees = 0n;
  let sigopCost = 0;

  for (let t = 0; t < block.txs.length; t++) {
    const tx = block.txs[t];
    const coinbase = tx.isCoinbase();
    const spent: Coin[] = [];
    if (!coinbase) {
      let valueIn = 0n;
      for (const input of tx.inputs) {
        const key = writeCoinKey(input.prevout, lookupKey);
        const k = key.toString('latin1');
        let coin = inBlock.get(k);
        if (coin) inBlock.delete(k);
        else if (!spentFromSet.has(k)) {
          coin = coins.getCoinByKey(key, k);
          if (coin) spentFromSet.add(k);
        }
        if (!coin) {
          throw new ValidationError(
            'bad-txns-inputs-missingorspent',
            `tx ${tx.txidHex} input ${hashToHex(input.prevout.txid)}:${input.prevout.vout} missing or spent`,
          );
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
      // BIP68 relative lock-times, against this block's height and its parent's median time past.
      if (
        !sequenceLocksSatisfied(
          sequenceLocks(
            tx,
            spent.map((c) => c.height),
            parent,
          ),
          parent,
        )
      ) {
        throw new ValidationError('bad-txns-nonfinal', 'non-BIP68-final transaction');
      }
      undo.push(spent);
    }
    sigopCost += getTransactionSigOpCost(
      tx,
      spent.map((c) => c.scriptPubKey),
      flags,
    );
    if (sigopCost > MAX_BLOCK_SIGOPS_COST) throw new ValidationError('bad-blk-sigops', 'too many sigops');
    onSpent(tx, t, spent);

    tx.outputs.forEach((out, vout) => {
      // Provably unspendable outputs never enter the UTXO set (Core's AddCoins).
      if (isUnspendable(out.scriptPubKey)) return;
      inBlock.set(writeCoinKey({ txid: tx.txid, vout }, lookupKey).toString('latin1'), coinFromOutput(out, height, coinbase));
    });
  }

  const claimed = block.txs[0].outputs.reduce((s, o) => s + o.value, 0n);
  const allowed = blockSubsidy(height, params) + fees;
  if (claimed > allowed) throw new ValidationError('bad-cb-amount', `coinbase pays too much (actual=${claimed} vs limit=${allowed})`);

  // A Set iterates in insertion order: the spends in block order.
  return { undo, spent: spentFromSet, created: inBlock, fees };
}
