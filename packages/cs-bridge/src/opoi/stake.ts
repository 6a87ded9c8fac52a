/**
 * The bridge's stake: made from OPOI_STAKE_UTXO when the address has none, declaring the manifests
 * of OPOI_SERVES; renewed before it lapses (a RENEW keeps the STAKE's served list, which only a new
 * STAKE changes). "No stake" is the node's answer, never guessed from an error.
 */
import { RpcError, walletConfirmations } from '@cs/client';
import { readStake, renewDue } from '../node/node-check.ts';
import type { EngineContext, StakeStatus } from './context.ts';

export interface StakeView {
  readonly status: StakeStatus;
  /** The served manifests of the stake on chain (empty without one). */
  readonly serves: readonly string[];
}

export class StakeKeeper {
  private warnedServes = false;
  private last: StakeStatus = 'unknown';

  constructor(private readonly ctx: EngineContext) {}

  async check(): Promise<StakeView> {
    const view = await this.read();
    this.last = view.status;
    return view;
  }

  private async read(): Promise<StakeView> {
    const { rpc, store, log, config } = this.ctx;
    const address = config.opoiAddress;
    let state: Awaited<ReturnType<typeof readStake>>;
    try {
      state = await readStake(rpc, address);
    } catch (e) {
      this.last = 'node-error';
      throw e;
    }
    if (state.kind === 'none') {
      const pending = store.meta('stake_txid');
      if (pending && (await this.alive(pending))) return { status: 'pending', serves: [] };
      if (!config.stakeUtxo) {
        if (this.last !== 'no-stake')
          log.error({ address }, 'no stake: set OPOI_STAKE_UTXO (or run cs-bridge setup) to stake a coin of the OPoI address');
        return { status: 'no-stake', serves: [] };
      }
      const { txid, vout } = config.stakeUtxo;
      let r: { txid: string };
      try {
        r = await rpc.call('stakeopoi', [address, txid, vout, null, null, config.serves.length > 0 ? [...config.serves] : null]);
      } catch (e) {
        // The coin is gone or not the address's, or a served id is no confirmed manifest (-8), or
        // the coin is too small (-6): say so once, and keep driving requests already committed;
        // only new work waits for a stake.
        if (!(e instanceof RpcError && (e.code === -8 || e.code === -6 || e.code === -5))) throw e;
        if (this.last !== 'no-stake')
          log.error(
            { address, collateral: `${txid}:${vout}`, serves: config.serves, err: e.message },
            'no stake: the node refused the STAKE (OPOI_STAKE_UTXO or OPOI_SERVES); pick another coin with cs-bridge setup, or fix OPOI_SERVES',
          );
        return { status: 'no-stake', serves: [] };
      }
      await store.apply({ meta: { stake_txid: r.txid }, sent: { [r.txid]: { kind: 'STAKE' } } });
      log.info({ txid: r.txid, collateral: `${txid}:${vout}`, serves: config.serves }, 'stake sent');
      return { status: 'pending', serves: [] };
    }
    const { stake } = state;
    this.compareServes(stake.serves);
    if (stake.status === 'UNSTAKING' || stake.status === 'UNSTAKED' || stake.status === 'FORFEITED') return { status: 'inactive', serves: [] };
    if (renewDue(stake, this.ctx.height)) await this.renew();
    return { status: stake.status === 'ACTIVE' ? 'active' : 'inactive', serves: stake.serves };
  }

  private async renew(): Promise<void> {
    const { rpc, store, log, config } = this.ctx;
    const pending = store.meta('renew_txid');
    if (pending && (await this.inMempool(pending))) return;
    try {
      const r = await rpc.call('renewopoistake', [config.opoiAddress]);
      await store.apply({ meta: { renew_txid: r.txid }, sent: { [r.txid]: { kind: 'RENEW' } } });
      log.info({ txid: r.txid }, 'stake renewal sent');
    } catch (e) {
      // A commit or reveal of ours in the mempool blocks a stake action until it confirms.
      if (!(e instanceof RpcError && /opoi-mempool-conflict/.test(e.message))) throw e;
    }
  }

  /** A STAKE's served list is fixed: an OPOI_SERVES changed since is said once, with what changes it. */
  private compareServes(onChain: readonly string[]): void {
    const wanted = [...this.ctx.config.serves].sort().join(',');
    if (this.warnedServes || wanted === [...onChain].sort().join(',')) return;
    this.warnedServes = true;
    this.ctx.log.warn(
      { stake_serves: onChain, opoi_serves: this.ctx.config.serves },
      'the stake serves other manifests than OPOI_SERVES names; a STAKE fixes its list (unstakeopoi, releaseopoistake, then the bridge stakes anew)',
    );
  }

  /** Confirmed, or unconfirmed and in the mempool: not conflicted, abandoned or unknown. */
  private async alive(txid: string): Promise<boolean> {
    const confirmations = await walletConfirmations(this.ctx.rpc, txid);
    return confirmations !== null && (confirmations > 0 || (confirmations === 0 && (await this.inMempool(txid))));
  }

  private async inMempool(txid: string): Promise<boolean> {
    try {
      await this.ctx.rpc.call('getmempoolentry', [txid]);
      return true;
    } catch (e) {
      if (e instanceof RpcError && e.code === -5) return false;
      throw e;
    }
  }
}
