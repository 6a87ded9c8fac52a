/**
 * The address index's unconfirmed half: for every address, the mempool transactions that pay or
 * spend it and by how much, kept in memory from the mempool's added/removed events. The mempool
 * is rebuilt at every start (mempool.dat), so nothing here is stored.
 *
 * Each transaction's effect is computed once, when it enters (its inputs' coins are then in the
 * chain's UTXO set or in the pool), and kept until it leaves, so removing it subtracts exactly
 * what adding it added, whatever happened to its parents since.
 */
import { scriptToDestination } from '@cs/consensus';
import type { AddedEvent, RemovedEvent } from '../mempool/events.ts';
import type { MempoolEntry } from '../mempool/entry.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { addressKey } from './address-deltas.ts';

/** What one mempool transaction does to one address (base units). */
interface Effect {
  received: bigint;
  sent: bigint;
}

/** An address's unconfirmed activity. */
export interface UnconfirmedActivity {
  /** Received minus sent over its mempool transactions. */
  readonly balance: bigint;
  /** Its mempool transactions, the latest to enter first. */
  readonly txids: readonly string[];
}

const NONE: UnconfirmedActivity = { balance: 0n, txids: [] };

export class MempoolAddresses {
  readonly #mempool: Mempool;
  /** Address key (as a latin1 string) → txid → effect, in the order the transactions entered. */
  readonly #byAddress = new Map<string, Map<string, Effect>>();
  /** Txid → the address keys it touches, to find them again when it leaves. */
  readonly #byTx = new Map<string, string[]>();

  constructor(mempool: Mempool) {
    this.#mempool = mempool;
  }

  /** Takes in what the pool holds now and follows it from then on. */
  start(): void {
    this.#mempool.events.on('added', this.#onAdded);
    this.#mempool.events.on('removed', this.#onRemoved);
    const present = [...this.#mempool.entries()].sort((a, b) => a.sequence - b.sequence);
    for (const entry of present) this.#add(entry);
  }

  close(): void {
    this.#mempool.events.off('added', this.#onAdded);
    this.#mempool.events.off('removed', this.#onRemoved);
  }

  activity(key: Buffer): UnconfirmedActivity {
    const txs = this.#byAddress.get(key.toString('latin1'));
    if (txs === undefined) return NONE;
    let balance = 0n;
    for (const e of txs.values()) balance += e.received - e.sent;
    return { balance, txids: [...txs.keys()].reverse() };
  }

  readonly #onAdded = ({ entry }: AddedEvent): void => this.#add(entry);

  readonly #onRemoved = ({ entry }: RemovedEvent): void => {
    for (const id of this.#byTx.get(entry.txid) ?? []) {
      const txs = this.#byAddress.get(id)!;
      txs.delete(entry.txid);
      if (txs.size === 0) this.#byAddress.delete(id);
    }
    this.#byTx.delete(entry.txid);
  };

  #add(entry: MempoolEntry): void {
    if (this.#byTx.has(entry.txid)) return;
    const effects = new Map<string, Effect>();
    const effect = (script: Uint8Array): Effect | undefined => {
      if (scriptToDestination(script) === null) return undefined;
      const id = addressKey(script).toString('latin1');
      let e = effects.get(id);
      if (e === undefined) {
        e = { received: 0n, sent: 0n };
        effects.set(id, e);
      }
      return e;
    };
    const view = this.#mempool.coinView();
    for (const input of entry.tx.inputs) {
      const coin = view.getCoin(input.prevout);
      if (coin === undefined) continue;
      const e = effect(coin.scriptPubKey);
      if (e) e.sent += coin.value;
    }
    for (const out of entry.tx.outputs) {
      const e = effect(out.scriptPubKey);
      if (e) e.received += out.value;
    }
    for (const [id, e] of effects) {
      let txs = this.#byAddress.get(id);
      if (txs === undefined) {
        txs = new Map();
        this.#byAddress.set(id, txs);
      }
      txs.set(entry.txid, e);
    }
    this.#byTx.set(entry.txid, [...effects.keys()]);
  }
}
