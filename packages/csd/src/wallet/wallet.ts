/**
 * The node's wallet: an HD wallet kept in the node's database, following the active chain and the
 * mempool. This class owns the wallet's state and every change to it; what the RPC methods read
 * is computed by TxView, balances.ts and coins.ts from that state.
 *
 * Safety rules the code keeps (docs/wallet.md):
 * - an address is recorded as used (its counter stored) before it is returned;
 * - a transaction the wallet creates is stored, and so counts as spending its coins, before it is
 *   offered to the mempool; a crash after that is healed by offering it again at the next start;
 * - each block's effect on the wallet is one write transaction with the wallet's best block, and
 *   at startup the wallet replays what it missed from that block on.
 */
import type { Logger } from 'pino';
import { type ChainParams, type Transaction, actorKeyScript } from '@cs/consensus';
import type { ChainBlockEvent } from '../chain/events.ts';
import type { Chain } from '../chain/chainstate.ts';
import type { FeeEstimator } from '../fees/estimator.ts';
import type { AddedEvent } from '../mempool/events.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { AcceptFailure } from '../mempool/results.ts';
import type { FeeRate } from '../policy/feerate.ts';
import type { ChainDatabase } from '../storage/database.ts';
import type { WalletRecord } from './backup.ts';
import { CoinLocks } from './coin-locks.ts';
import { Encryption } from './encryption.ts';
import { WalletError } from './errors.ts';
import { DEFAULT_LOOKAHEAD, Keyring, generateWallet, scriptForKey } from './keyring.ts';
import { Ledger } from './ledger.ts';
import { ADDRESS_TYPES, EXTERNAL, INTERNAL, WALLET_FORMAT_VERSION, type AddressType, type BestBlock, type KeyChain } from './records.ts';
import { Rescanner } from './rescan.ts';
import { WalletStore, parseRecords } from './store.ts';
import { TxTracker } from './tracker.ts';
import { INACTIVE } from './tx-state.ts';
import { TxView } from './tx-view.ts';
import type { WalletTx } from './wallet-tx.ts';

export interface WalletOptions {
  readonly db: ChainDatabase;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly feeEstimator: FeeEstimator;
  readonly params: ChainParams;
  /** The node clock, Unix seconds. */
  readonly now: () => number;
  readonly log: Logger;
  /** -fallbackfee in units/kvB; 0 refuses to send without a fee estimate. */
  readonly fallbackFee: FeeRate;
  /** How far past the last used index each key chain is watched (Core's -keypool). */
  readonly lookahead?: number;
}

/** What offering one of the wallet's own transactions to the mempool gave. */
export type SubmitResult = { readonly ok: true } | { readonly ok: false; readonly failure: AcceptFailure };

/** Everything loaded from the records; replaced as a whole when a backup is restored. */
interface WalletState {
  readonly keyring: Keyring;
  readonly ledger: Ledger;
  readonly view: TxView;
  readonly locks: CoinLocks;
  readonly encryption: Encryption;
  readonly tracker: TxTracker;
  readonly rescanner: Rescanner;
  readonly bestBlock: BestBlock | null;
}

export class Wallet {
  /** The default wallet's name, as Core's unnamed wallet: "". */
  readonly name = '';
  readonly store: WalletStore;
  readonly params: ChainParams;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly feeEstimator: FeeEstimator;
  readonly fallbackFee: FeeRate;
  readonly now: () => number;
  /** settxfee: a fee rate for every transaction, in units/kvB; 0 when unset. */
  payTxFee: FeeRate = 0n;
  private readonly log: Logger;
  private readonly lookahead: number;
  private state: WalletState;
  private attached = false;

  private constructor(opts: WalletOptions, store: WalletStore) {
    this.store = store;
    this.params = opts.params;
    this.chain = opts.chain;
    this.mempool = opts.mempool;
    this.feeEstimator = opts.feeEstimator;
    this.fallbackFee = opts.fallbackFee;
    this.now = opts.now;
    this.log = opts.log;
    this.lookahead = opts.lookahead ?? DEFAULT_LOOKAHEAD;
    this.state = this.loadState();
  }

  private loadState(): WalletState {
    const stored = this.store.load();
    const keyring = new Keyring(stored, this.params.coinType, this.lookahead, stored.birth);
    const ledger = new Ledger(stored.txs);
    const view = new TxView(ledger, keyring, this.chain, this.mempool, this.params.coinbaseMaturity);
    const tracker = new TxTracker(ledger, keyring, this.now);
    return {
      keyring,
      ledger,
      view,
      tracker,
      locks: new CoinLocks(stored.locks),
      encryption: new Encryption(stored.masterKey, keyring, this.store, this.now),
      rescanner: new Rescanner(this.chain, this.store, tracker, this.log),
      bestBlock: stored.bestBlock,
    };
  }

  get keyring(): Keyring {
    return this.state.keyring;
  }

  get ledger(): Ledger {
    return this.state.ledger;
  }

  get view(): TxView {
    return this.state.view;
  }

  get locks(): CoinLocks {
    return this.state.locks;
  }

  get encryption(): Encryption {
    return this.state.encryption;
  }

  get rescanner(): Rescanner {
    return this.state.rescanner;
  }

  /**
   * Opens the wallet in `db`, creating it (a new random seed) on first use. Reads only: call
   * start() once the chain and mempool are loaded.
   */
  static open(opts: WalletOptions): Wallet {
    const store = new WalletStore(opts.db);
    if (store.isEmpty()) {
      const { seed, accounts } = generateWallet(opts.params.coinType);
      store.write((w) => {
        w.putMeta('version', WALLET_FORMAT_VERSION);
        w.putMeta('birth', opts.now());
        w.putSeed(seed);
        for (const [type, account] of accounts) w.putAccount(type, account);
      });
      opts.log.info('wallet created with a new HD seed; back it up with backupwallet');
    }
    return new Wallet(opts, store);
  }

  /** Follows chain and mempool events from now on, after catching up with what happened meanwhile. */
  async start(): Promise<void> {
    this.attach();
    await this.catchUp();
    this.log.info({ txs: this.ledger.size, height: this.chain.height, encrypted: this.encryption.encrypted }, 'wallet loaded');
  }

  /**
   * Catches up with the chain from the wallet's best block (undoing what a reorg it missed took
   * away), picks up relevant mempool transactions and offers its own unconfirmed transactions to
   * the mempool again.
   */
  private async catchUp(): Promise<void> {
    // Below an unvalidated UTXO snapshot's base the blocks are not there yet (docs/snapshots.md).
    const floor = this.chain.snapshots.floor;
    const from = floor > 0 ? Math.max(this.resumeHeight(), floor + 1) : this.resumeHeight();
    if (from <= this.chain.height) {
      this.log.info({ from, to: this.chain.height }, 'wallet catching up with the chain');
      await this.rescanner.scan(from, null);
    }
    this.store.write((w) => w.putBestBlock({ hash: this.chain.tip.hashHex, height: this.chain.height }));
    this.scanMempool();
    this.resubmit();
  }

  /** The first height the wallet has not seen, after undoing confirmations of blocks no longer active. */
  private resumeHeight(): number {
    const best = this.state.bestBlock;
    // A new wallet has no history before its birth: nothing to scan.
    if (!best) return this.chain.height + 1;
    const entry = this.chain.entry(best.hash);
    if (entry && this.chain.contains(entry)) return entry.height + 1;
    let fork = entry ?? null;
    while (fork && !this.chain.contains(fork)) fork = fork.prev;
    this.store.write((w) => {
      for (const wtx of [...this.ledger.all()]) {
        if (wtx.state.kind === 'inactive') continue;
        const block = this.chain.entry(wtx.state.blockHash);
        if (!block || !this.chain.contains(block)) this.ledger.put({ ...wtx, state: INACTIVE }, w);
      }
    });
    return fork ? fork.height + 1 : 0;
  }

  private attach(): void {
    this.chain.events.on('connect', this.onConnect);
    this.chain.events.on('disconnect', this.onDisconnect);
    this.mempool.events.on('added', this.onMempoolAdded);
    this.attached = true;
  }

  /** Stops following the chain and forgets the master key. */
  close(): void {
    if (this.attached) {
      this.chain.events.off('connect', this.onConnect);
      this.chain.events.off('disconnect', this.onDisconnect);
      this.mempool.events.off('added', this.onMempoolAdded);
      this.attached = false;
    }
    this.encryption.lock();
  }

  private readonly onConnect = ({ block, entry }: ChainBlockEvent): void => {
    this.store.write((w) => this.state.tracker.blockConnected(block, entry, w));
  };

  private readonly onDisconnect = ({ block, entry }: ChainBlockEvent): void => {
    this.store.write((w) => this.state.tracker.blockDisconnected(block, entry, w));
  };

  private readonly onMempoolAdded = ({ entry }: AddedEvent): void => {
    this.syncUnconfirmed(entry.tx);
  };

  /** Records a mempool transaction if it concerns the wallet and is not already recorded as such. */
  private syncUnconfirmed(tx: Transaction): void {
    const known = this.ledger.get(tx.txidHex);
    if (known?.state.kind === 'inactive' && !known.state.abandoned) return;
    if (!known && !this.state.tracker.isRelevant(tx)) return;
    this.store.write((w) => this.state.tracker.sync(tx, INACTIVE, w));
  }

  /** Mempool transactions that concern the wallet (after an import, or at startup). */
  scanMempool(): void {
    for (const entry of this.mempool.entries()) this.syncUnconfirmed(entry.tx);
  }

  /** Core's ResubmitWalletTransactions at load: unconfirmed wallet transactions missing from the mempool, oldest first. */
  private resubmit(): void {
    const pending = [...this.ledger.all()]
      .filter((wtx) => wtx.state.kind === 'inactive' && !wtx.state.abandoned && !wtx.tx.isCoinbase() && !this.mempool.has(wtx.txid))
      .sort((a, b) => a.orderPos - b.orderPos);
    for (const wtx of pending) {
      const result = this.mempool.accept(wtx.tx);
      if (result.kind !== 'accepted')
        this.log.debug({ txid: wtx.txid, reason: result.kind === 'valid' ? 'valid' : result.reason }, 'wallet transaction not resubmitted');
    }
  }

  // ---- keys ----

  /**
   * A new address of `type` on `chain` (receive or change). Its index is stored as used in the
   * same transaction as the label, before the address is returned: never handed out twice.
   */
  newAddressScript(type: AddressType, chain: KeyChain = EXTERNAL, label?: string): Uint8Array {
    const { index, script } = this.keyring.peek(type, chain);
    this.store.write((w) => {
      this.keyring.markUsed(type, chain, index, w);
      if (label !== undefined) this.keyring.setLabel(script, label, w);
    });
    return script;
  }

  /** Unused keys watched ahead on one chain, summed over address types (getwalletinfo's keypoolsize; the same for change). */
  keypoolSize(): number {
    return ADDRESS_TYPES.length * this.keyring.lookahead;
  }

  /** Whether the script is the wallet's through a key it holds (not watch-only). */
  hasKeyFor(script: Uint8Array): boolean {
    const own = this.keyring.ownership(script);
    return own !== undefined && own.kind !== 'watch';
  }

  scriptForKey(type: AddressType, publicKey: Uint8Array): Uint8Array {
    return scriptForKey(type, publicKey);
  }

  // ---- own transactions ----

  /**
   * Stores a transaction the wallet made, then offers it to the mempool. The transaction counts
   * as spending its coins from the moment it is stored; if the mempool refuses it, it is removed
   * again in one write, so the coins are free once more. Change indexes it used stay used.
   */
  commit(tx: Transaction, change: { type: AddressType; index: number } | null, comment: { comment: string; commentTo: string }): SubmitResult {
    this.store.write((w) => {
      if (change) this.keyring.markUsed(change.type, INTERNAL, change.index, w);
      this.state.tracker.sync(tx, INACTIVE, w, comment);
    });
    // Broadcast with relay, as Core's CommitTransaction: unbroadcast until a peer takes it.
    const result = this.mempool.accept(tx, { unbroadcast: true });
    if (result.kind === 'accepted') return { ok: true };
    if (result.kind === 'valid') throw new Error('a wallet submission was handled as a test');
    this.store.write((w) => this.ledger.remove(tx.txidHex, w));
    return { ok: false, failure: result };
  }

  /** Output scripts (hex) of this wallet's addresses that hold an OPoI stake. */
  stakedScripts(): Set<string> {
    const out = new Set<string>();
    for (const s of this.chain.opoi.stakes()) {
      const script = Buffer.from(actorKeyScript(s.miner), 'hex');
      if (this.hasKeyFor(script)) out.add(script.toString('hex'));
    }
    return out;
  }

  /** abandontransaction: an unconfirmed transaction out of the mempool stops counting, and so do its wallet descendants. */
  abandon(wtx: WalletTx): void {
    this.store.write((w) => {
      const queue = [wtx];
      while (queue.length > 0) {
        const t = queue.shift()!;
        if (t.state.kind !== 'inactive' || t.state.abandoned) continue;
        this.ledger.put({ ...t, state: { kind: 'inactive', abandoned: true } }, w);
        queue.push(...this.ledger.children(t.txid));
      }
    });
  }

  // ---- backup ----

  /** Whether the wallet was never used: no address handed out, nothing imported, no transaction, not encrypted. */
  isUnused(): boolean {
    const k = this.keyring;
    const counters = ADDRESS_TYPES.every((t) => k.nextIndex(t, EXTERNAL) === 0 && k.nextIndex(t, INTERNAL) === 0);
    return counters && this.ledger.size === 0 && !k.holdsImports && !this.encryption.encrypted;
  }

  /**
   * restorewallet: replaces this wallet with a backup's records and catches up with the chain from
   * the backup's best block. Only a wallet that was never used may be replaced, so no key is lost.
   */
  async restore(records: readonly WalletRecord[]): Promise<void> {
    if (!this.isUnused()) throw new WalletError('wallet', 'The current wallet has been used and cannot be replaced');
    if (this.rescanner.progress) throw new WalletError('wallet', 'Wallet is currently rescanning. Abort existing rescan or wait.');
    parseRecords(records);
    this.encryption.lock();
    this.store.replaceAll(records);
    this.state = this.loadState();
    this.log.info({ txs: this.ledger.size }, 'wallet restored from a backup');
    await this.catchUp();
  }
}
