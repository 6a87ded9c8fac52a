/**
 * Sending a payment that was signed and written down before it went out (cs-pool's payouts,
 * cs-bridge's miner payments): the same bytes every time, so a retry after a crash can only ever
 * confirm once, and the node's answers tell "already out" apart from "can never go out".
 */
import { type RpcClient, RpcError } from './client.ts';

/** The wallet's confirmations of a transaction (negative when conflicted), or null when it does not know it. */
export async function walletConfirmations(rpc: RpcClient, txid: string): Promise<number | null> {
  try {
    return (await rpc.call('gettransaction', [txid])).confirmations;
  } catch (e) {
    if (e instanceof RpcError && e.code === -5) return null;
    throw e;
  }
}

/**
 * Broadcasts a recorded payment. 'sent' when it is out: now, or before (in the chain, -27, or known
 * to the wallet); 'unspendable' when the node refuses it for good (-25 missing inputs, -26 rejected)
 * and nothing of it is out, so its amounts can be owed again. Other failures throw (retry later).
 */
export async function broadcastRecorded(rpc: RpcClient, hex: string, txid: string): Promise<'sent' | 'unspendable'> {
  try {
    await rpc.call('sendrawtransaction', [hex]);
    return 'sent';
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    if (e.code === -27) return 'sent';
    const known = await walletConfirmations(rpc, txid);
    if (known !== null && known >= 0) return 'sent';
    if (e.code === -25 || e.code === -26) return 'unspendable';
    throw e;
  }
}

/** What became of a transaction the wallet sent (followSent). */
export type SentFate = 'confirmed' | 'pending' | 'released' | 'gone';

/**
 * Follows a transaction the wallet sent. 'confirmed' with `depth` confirmations or more;
 * 'pending' while it is unconfirmed and in the mempool (or taken back into it now);
 * 'released' when it left the mempool and the node refuses it again (-25, -26), for example an
 * OPoI action whose window the chain passed: it can never confirm, yet the wallet (as Core's)
 * counts its inputs spent until it is abandoned, so it is abandoned here; 'gone' when the wallet
 * does not know it or a block transaction conflicts with it (its inputs are free already).
 */
export async function followSent(rpc: RpcClient, txid: string, depth: number): Promise<SentFate> {
  let wtx: { confirmations: number; hex: string };
  try {
    wtx = await rpc.call('gettransaction', [txid]);
  } catch (e) {
    if (e instanceof RpcError && e.code === -5) return 'gone';
    throw e;
  }
  if (wtx.confirmations < 0) return 'gone';
  if (wtx.confirmations > 0) return wtx.confirmations >= depth ? 'confirmed' : 'pending';
  try {
    await rpc.call('sendrawtransaction', [wtx.hex]);
    return 'pending';
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    // A block took it since gettransaction (-27); one in the mempool is answered with its txid.
    if (e.code === -27) return 'pending';
    if (e.code !== -25 && e.code !== -26) throw e;
  }
  try {
    await rpc.call('abandontransaction', [txid]);
    return 'released';
  } catch (e) {
    // Not eligible: a block or the mempool took it meanwhile.
    if (e instanceof RpcError && e.code === -5) return 'pending';
    throw e;
  }
}
