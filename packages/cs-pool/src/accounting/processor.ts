/**
 * The payout processor: one per pool (PostgreSQL: the holder of the advisory lock). Each tick it
 * credits newly found blocks by the payout scheme, follows them to maturity or orphaning, and pays
 * mature balances through csd's wallet exactly once:
 *
 *   1. the signed payment transaction and its txid are written down, together with the balance
 *      moves, in one atomic step, before anything is broadcast;
 *   2. then it is broadcast and marked so.
 *
 * A crash before 1 leaves nothing to undo (nothing was sent). A crash after 1 leaves a 'signed'
 * record: the next tick, before building any new payment, rebroadcasts exactly that transaction
 * (same txid, so it can confirm at most once), or finds it already known, or, when its inputs
 * were spent by something else and the node does not know it, marks it failed and gives the
 * balances back. No new payment is built while one is unresolved, so two can never spend the
 * same coins.
 */
import { Transaction, fromHex } from '@cs/consensus';
import { type RpcClient, RpcError, broadcastRecorded, walletConfirmations } from '@cs/client';
import type { Logger } from 'pino';
import { crashPoint } from '../node/crash.ts';
import { feeOf, pplnsCredits, propCredits, soloCredits, type Credits, type PayoutScheme } from './schemes.ts';
import type { AccountingStore, BalanceDelta, BlockRecord, PaymentRecord } from './store.ts';

export interface ProcessorConfig {
  readonly scheme: PayoutScheme;
  /** Pool fee in basis points of each block reward. */
  readonly feeBasisPoints: number;
  /** PPLNS window as a multiple of the network difficulty: N = factor × the work a block takes. */
  readonly pplnsFactor: number;
  /** Confirmations after which a block's reward is mature (COINBASE_MATURITY). */
  readonly maturity: number;
  /** Smallest balance paid out, base units. */
  readonly minPayout: bigint;
  /** Payments are built at most this often (ms); maturity and crediting run every tick. */
  readonly payoutIntervalMs: number;
  /** fundrawtransaction's fee_rate in base units per vbyte; null leaves it to the wallet's estimate. */
  readonly feeRate: number | null;
}

export function coinsString(units: bigint): string {
  const whole = units / 100_000_000n;
  const frac = (units % 100_000_000n).toString().padStart(8, '0');
  return `${whole}.${frac}`;
}

function toRecord(credits: Credits): Record<string, string> {
  return Object.fromEntries([...credits].filter(([, v]) => v > 0n).map(([k, v]) => [k, v.toString()]));
}

function creditEntries(block: BlockRecord): [string, bigint][] {
  return Object.entries(block.credits).map(([a, v]) => [a, BigInt(v)]);
}

export class PayoutProcessor {
  private lastPayout = 0;
  private active = false;

  constructor(
    private readonly store: AccountingStore,
    private readonly rpc: RpcClient,
    private readonly config: ProcessorConfig,
    private readonly log: Logger,
  ) {}

  async tick(now = Date.now()): Promise<void> {
    const locked = await this.store.acquirePayoutLock();
    if (locked !== this.active) {
      this.active = locked;
      if (locked) this.log.info('payout processor active: this instance holds the payout lock');
      else this.log.warn('payout lock lost: another instance processes payouts');
    }
    if (!locked) return;
    await this.creditNewBlocks();
    await this.classifyBlocks();
    await this.reconcilePayments();
    if (now - this.lastPayout >= this.config.payoutIntervalMs) {
      this.lastPayout = now;
      await this.pay(now);
    }
  }

  /** 'new' blocks, oldest first, get their credits as immature balances. */
  private async creditNewBlocks(): Promise<void> {
    for (const block of await this.store.blocks()) {
      if (block.status !== 'new') continue;
      const fee = block.solo ? block.fee : feeOf(block.reward, this.config.feeBasisPoints);
      const amount = block.solo ? block.reward : block.reward - fee;
      const meta: Record<string, string> = {};
      let credits: Credits;
      let rounds: [number, number][] = [];
      if (block.solo) {
        credits = soloCredits(amount, block.finder);
      } else if (this.config.scheme === 'pplns') {
        const window = (BigInt(Math.round(this.config.pplnsFactor * 1000)) * block.networkWork) / 1000n;
        const newestFirst = [];
        let sum = 0n;
        for await (const share of this.store.sharesDescending(block.shareSeq)) {
          if (share.solo) continue;
          newestFirst.push(share);
          sum += share.work;
          if (sum >= window) break;
        }
        credits = pplnsCredits(amount, newestFirst, window);
      } else {
        const carry = JSON.parse((await this.store.meta('prop.carry')) ?? '[]') as [number, number][];
        const start = Number((await this.store.meta('prop.roundStart')) ?? '0');
        rounds = [...carry, [start, block.shareSeq]];
        const shares = [];
        for (const [after, upTo] of rounds) for await (const s of this.store.sharesInRange(after, upTo)) if (!s.solo) shares.push(s);
        credits = propCredits(amount, shares);
        meta['prop.carry'] = '[]';
        meta['prop.roundStart'] = String(block.shareSeq);
      }
      if (credits.size === 0) credits = soloCredits(amount, block.finder);
      const credited: BlockRecord = { ...block, status: 'pending', credits: toRecord(credits), fee, rounds };
      await this.store.apply({
        blocks: [credited],
        balances: creditEntries(credited).map(([address, v]) => ({ address, immature: v })),
        meta,
      });
      this.log.info({ hash: block.hash, height: block.height, credits: credited.credits, fee: fee.toString() }, 'block credited');
    }
  }

  /** Pending blocks: still at their height with their coinbase? Mature yet? */
  private async classifyBlocks(): Promise<void> {
    for (const block of await this.store.blocks()) {
      if (block.status !== 'pending') continue;
      const state = await this.blockState(block);
      if (state === 'unknown') continue;
      if (state === 'orphaned') {
        const meta: Record<string, string> = {};
        if (block.rounds.length > 0) {
          const carry = JSON.parse((await this.store.meta('prop.carry')) ?? '[]') as [number, number][];
          meta['prop.carry'] = JSON.stringify([...carry, ...block.rounds]);
        }
        await this.store.apply({
          blocks: [{ ...block, status: 'orphaned', confirmations: 0 }],
          balances: creditEntries(block).map(([address, v]) => ({ address, immature: -v })),
          meta,
        });
        this.log.warn({ hash: block.hash, height: block.height }, 'block orphaned: its credits are withdrawn');
        continue;
      }
      if (state < this.config.maturity) {
        if (state !== block.confirmations) await this.store.apply({ blocks: [{ ...block, confirmations: state }] });
        continue;
      }
      // Solo finders were paid by the coinbase itself: their credit moves straight to paid.
      const balances: BalanceDelta[] = creditEntries(block).map(([address, v]) =>
        block.solo ? { address, immature: -v, paid: v } : { address, immature: -v, pending: v },
      );
      await this.store.apply({ blocks: [{ ...block, status: 'confirmed', confirmations: state }], balances });
      this.log.info({ hash: block.hash, height: block.height }, 'block matured');
    }
  }

  /** Confirmations, 'orphaned' when another block holds its height or its coinbase differs, 'unknown' when the node cannot tell now. */
  private async blockState(block: BlockRecord): Promise<number | 'orphaned' | 'unknown'> {
    try {
      const info = await this.rpc.call('getblock', [block.hash, 1]);
      // Verbosity 1 answers the block as an object whose tx are txids.
      if (typeof info !== 'object' || typeof info.confirmations !== 'number') throw new Error('getblock answered without verbosity 1');
      const { confirmations } = info;
      if (confirmations < 1 || info.tx[0] !== block.coinbaseTxid) return 'orphaned';
      return confirmations;
    } catch (e) {
      // -5: the node never had it (it did when it was found, so it was lost in a reorg of the node's data).
      if (e instanceof RpcError && e.code === -5) return 'orphaned';
      this.log.warn({ err: (e as Error).message, hash: block.hash }, 'cannot check a block now');
      return 'unknown';
    }
  }

  private async reconcilePayments(): Promise<void> {
    for (const p of await this.store.payments()) {
      if (p.status === 'signed') await this.broadcast(p);
      else if (p.status === 'broadcast') {
        const confirmations = await walletConfirmations(this.rpc, p.txid);
        if (confirmations !== null && confirmations >= 1) await this.store.apply({ payments: [{ ...p, status: 'confirmed' }] });
      }
    }
  }

  /** Sends a recorded payment; the same signed bytes every time, so it can only ever confirm once. */
  private async broadcast(p: PaymentRecord): Promise<void> {
    if ((await broadcastRecorded(this.rpc, p.hex, p.txid)) === 'unspendable') {
      await this.store.apply({
        payments: [{ ...p, status: 'failed' }],
        balances: Object.entries(p.amounts).map(([address, v]) => ({ address, pending: BigInt(v), paid: -BigInt(v) })),
      });
      this.log.error({ txid: p.txid }, 'payment can no longer be sent (inputs spent elsewhere): balances restored');
      return;
    }
    await this.store.apply({ payments: [{ ...p, status: 'broadcast' }] });
    this.log.info({ txid: p.txid, amounts: p.amounts }, 'payment broadcast');
  }

  private async pay(now: number): Promise<void> {
    if ((await this.store.payments()).some((p) => p.status === 'signed')) return;
    const due = [...(await this.store.balances())].filter(([, b]) => b.pending >= this.config.minPayout && b.pending > 0n);
    if (due.length === 0) return;
    const outputs = Object.fromEntries(due.map(([address, b]) => [address, coinsString(b.pending)]));
    let hex: string;
    try {
      const raw = await this.rpc.call('createrawtransaction', [[], outputs]);
      const options = this.config.feeRate === null ? {} : { fee_rate: this.config.feeRate };
      const funded = await this.rpc.call('fundrawtransaction', [raw, options]);
      const signed = await this.rpc.call('signrawtransactionwithwallet', [funded.hex]);
      if (!signed.complete) throw new Error('the wallet could not sign every input (locked wallet?)');
      hex = signed.hex;
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'cannot build the payment now; balances stay due');
      return;
    }
    const txid = Transaction.decode(fromHex(hex), { allowWitness: true }).txidHex;
    const payments = await this.store.payments();
    const id = payments.reduce((m, p) => Math.max(m, p.id), 0) + 1;
    const payment: PaymentRecord = {
      id,
      txid,
      hex,
      amounts: Object.fromEntries(due.map(([address, b]) => [address, b.pending.toString()])),
      status: 'signed',
      time: now,
    };
    await this.store.apply({ payments: [payment], balances: due.map(([address, b]) => ({ address, pending: -b.pending, paid: b.pending })) });
    this.log.info({ txid, id }, 'payment recorded');
    crashPoint('after-record');
    await this.broadcast(payment);
    crashPoint('after-broadcast');
  }
}
