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
