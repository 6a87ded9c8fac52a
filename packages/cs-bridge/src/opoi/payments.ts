/**
 * Miners' shares leave the node wallet exactly once (docs/bridge.md, "Payouts"), as cs-pool pays:
 *   1. the signed transaction and its txid are recorded, with the balances moved to paid, in one
 *      store transaction, before anything is broadcast;
 *   2. then it is broadcast and marked so.
 * After a crash a 'signed' payment is broadcast again (the same bytes, so it can confirm once) or
 * found known; when its inputs went elsewhere it is marked failed and the balances come back.
 * No new payment is built while one is unresolved.
 *
 * The winner's pay lands on the OPoI address, whose coins ordinary wallet sends leave alone (they
 * fund commits and reveals): payments name those coins as inputs and send the change (the bridge's
 * fee) back to the OPoI address.
 */
import { Transaction, fromHex } from '@cs/consensus';
import { type JsonValue, type RpcClient, broadcastRecorded } from '@cs/client';
import { amountToJson } from '@cs/runtime/amount';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/env.ts';
import type { BridgeStore, PaymentRecord } from '../store/store.ts';
import { crashPoint } from './crash-point.ts';

/** Inputs named per payment at most (the rest waits for the next one). */
const MAX_INPUTS = 50;

export class Payments {
  constructor(
    private readonly config: BridgeConfig,
    private readonly rpc: RpcClient,
    private readonly store: BridgeStore,
    private readonly log: Logger,
  ) {}

  async run(): Promise<void> {
    for (const p of this.store.payments()) if (p.status === 'signed') await this.broadcast(p);
    if (this.store.payments().some((p) => p.status === 'signed')) return;
    await this.pay();
  }

  private async broadcast(p: PaymentRecord): Promise<void> {
    if ((await broadcastRecorded(this.rpc, p.hex, p.txid)) === 'unspendable') {
      await this.store.apply({
        payments: [{ ...p, status: 'failed' }],
        balances: Object.entries(p.amounts).map(([wallet, v]) => ({ wallet, pending: BigInt(v), paid: -BigInt(v) })),
      });
      this.log.error({ txid: p.txid }, 'payment can no longer be sent (inputs spent elsewhere): balances restored');
      return;
    }
    await this.store.apply({ payments: [{ ...p, status: 'broadcast' }] });
    this.log.info({ txid: p.txid, amounts: p.amounts }, 'miner payment broadcast');
  }

  private async pay(): Promise<void> {
    const due = this.store.balances().filter(([, b]) => b.pending > 0n && b.pending >= this.config.minPayout);
    if (due.length === 0) return;
    const total = due.reduce((s, [, b]) => s + b.pending, 0n);
    const coins = await this.rpc.call('listunspent', [1, 9_999_999, [this.config.opoiAddress]]);
    const inputs = coins
      .filter((c) => c.spendable)
      .sort((a, b) => b.amount - a.amount)
      .slice(0, MAX_INPUTS)
      .map((c) => ({ txid: c.txid, vout: c.vout }));
    const outputs = Object.fromEntries(due.map(([wallet, b]) => [wallet, amountToJson(b.pending)]));
    let hex: string;
    try {
      const raw = await this.rpc.call('createrawtransaction', [inputs, outputs]);
      const options: { [key: string]: JsonValue } = { changeAddress: this.config.opoiAddress };
      if (this.config.payoutFeeRate !== null) options.fee_rate = this.config.payoutFeeRate;
      const funded = await this.rpc.call('fundrawtransaction', [raw, options]);
      const signed = await this.rpc.call('signrawtransactionwithwallet', [funded.hex]);
      if (!signed.complete) throw new Error('the wallet could not sign every input (locked wallet?)');
      hex = signed.hex;
    } catch (e) {
      this.log.error({ err: (e as Error).message, total: total.toString() }, 'cannot build the miner payment now; balances stay due');
      return;
    }
    const txid = Transaction.decode(fromHex(hex), { allowWitness: true }).txidHex;
    const id = this.store.nextNumber('payment');
    const payment: PaymentRecord = {
      id,
      txid,
      hex,
      amounts: Object.fromEntries(due.map(([wallet, b]) => [wallet, b.pending.toString()])),
      status: 'signed',
      time: Date.now(),
    };
    await this.store.apply({
      payments: [payment],
      balances: due.map(([wallet, b]) => ({ wallet, pending: -b.pending, paid: b.pending })),
      meta: { payment: String(id) },
    });
    this.log.info({ txid, id }, 'miner payment recorded');
    crashPoint('after-payment-record');
    await this.broadcast(payment);
  }
}
