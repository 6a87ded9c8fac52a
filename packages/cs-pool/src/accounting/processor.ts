/**
 * The payout processor: one per pool (PostgreSQL: the holder of the advisory lock). Each tick it
 * follows found blocks on the active chain (follow.ts: credited by the payout scheme while the
 * chain holds them, then mature or orphaned), and pays mature balances through csd's wallet
 * exactly once:
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
import { type RpcClient, broadcastRecorded, walletConfirmations } from '@cs/client';
import type { Logger } from 'pino';
import { crashPoint } from '../node/crash.ts';
import { BlockFollower, type FollowConfig } from './follow.ts';
import type { AccountingStore, PaymentRecord } from './store.ts';

export interface ProcessorConfig extends FollowConfig {
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

export class PayoutProcessor {
  private lastPayout = 0;
  private active = false;
  private readonly blocks: BlockFollower;

  constructor(
    private readonly store: AccountingStore,
    private readonly rpc: RpcClient,
    private readonly config: ProcessorConfig,
    private readonly log: Logger,
  ) {
    this.blocks = new BlockFollower(store, rpc, config, log);
  }

  async tick(now = Date.now()): Promise<void> {
    const locked = await this.store.acquirePayoutLock();
    if (locked !== this.active) {
      this.active = locked;
      if (locked) this.log.info('payout processor active: this instance holds the payout lock');
      else this.log.warn('payout lock lost: another instance processes payouts');
    }
    if (!locked) return;
    await this.blocks.follow();
    await this.reconcilePayments();
    if (now - this.lastPayout >= this.config.payoutIntervalMs) {
      this.lastPayout = now;
      await this.pay(now);
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
