/**
 * What the bridge needs from csd before it starts, each failure told apart in words an operator
 * can act on: the node unreachable, the credentials refused, the OPoI address not (spendable) in
 * the node wallet. Also the stake: "no stake" is an answer of the node, never guessed from an
 * error (the reference read any RPC error at start-up as "no stake").
 */
import { RpcError, RpcTransportError, type RpcClient } from '@cs/client';

export class NodeCheckError extends Error {}

export interface NodeInfo {
  readonly chain: string;
  readonly height: number;
}

/** The node answers, accepts the credentials, and holds the OPoI address's key. */
export async function checkNode(rpc: RpcClient, rpcUrl: string, opoiAddress: string): Promise<NodeInfo> {
  let info: { chain: string; blocks: number };
  try {
    info = await rpc.call('getblockchaininfo');
  } catch (e) {
    throw new NodeCheckError(describeNodeError(e, rpcUrl));
  }
  let addr: { ismine?: boolean; iswatchonly?: boolean; isvalid?: boolean };
  try {
    addr = await rpc.call('getaddressinfo', [opoiAddress]);
  } catch (e) {
    if (e instanceof RpcError && e.code === -5)
      throw new NodeCheckError(`OPOI_ADDRESSES: ${opoiAddress} is not a valid address of the node's network (${info.chain})`);
    if (e instanceof RpcError && e.code === -18)
      throw new NodeCheckError('the node has no wallet loaded: the OPoI address and its key must be in the node wallet');
    throw new NodeCheckError(describeNodeError(e, rpcUrl));
  }
  if (addr.ismine !== true || addr.iswatchonly === true) {
    throw new NodeCheckError(
      `OPOI_ADDRESSES: the node wallet does not hold the key of ${opoiAddress}; create it there (getnewaddress) or import it (importprivkey) — the bridge never takes a private key`,
    );
  }
  return { chain: info.chain, height: info.blocks };
}

/** One sentence for an RPC failure: unreachable, credentials, or what the node said. */
export function describeNodeError(e: unknown, rpcUrl: string): string {
  if (e instanceof RpcTransportError) {
    if (e.status === 401 || e.status === 403)
      return `the node at ${rpcUrl} refused CSD_RPC_USER/CSD_RPC_PASS (HTTP ${e.status}); check rpcuser and rpcpassword in its cs.conf`;
    if (e.status !== null) return `the node at ${rpcUrl} answered HTTP ${e.status}: is CSD_RPC_URL the JSON-RPC port (server=1)?`;
    return `cannot reach the node at ${rpcUrl} (${e.message}); is csd running with server=1, and CSD_RPC_URL right?`;
  }
  if (e instanceof RpcError) return `the node answered ${e.method} with error ${e.code}: ${e.message}`;
  return (e as Error).message;
}

export interface StakeInfo {
  readonly status: string;
  readonly renewedHeight: number;
  readonly renewByHeight: number;
  /** Model ids of the manifests its STAKE declared (fixed until the next STAKE). */
  readonly serves: readonly string[];
}

export type StakeState = { readonly kind: 'stake'; readonly stake: StakeInfo } | { readonly kind: 'none' };

/** The address's stake, or `none` when the node says it has none; any other failure throws. */
export async function readStake(rpc: RpcClient, opoiAddress: string): Promise<StakeState> {
  try {
    const s = await rpc.call('getopoistake', [opoiAddress]);
    return { kind: 'stake', stake: { status: s.status, renewedHeight: s.renewed_height, renewByHeight: s.renew_by_height, serves: s.serves } };
  } catch (e) {
    if (e instanceof RpcError && e.code === -5 && /no stake/.test(e.message)) return { kind: 'none' };
    throw e;
  }
}

/** Renew when fewer than a tenth of the renewal period is left (at least 2 blocks, for confirmation). */
export function renewDue(stake: StakeInfo, height: number): boolean {
  const period = stake.renewByHeight - stake.renewedHeight;
  const margin = Math.max(2, Math.floor(period / 10));
  return stake.status === 'SUSPENDED' || stake.renewByHeight - height <= margin;
}

export interface Utxo {
  readonly txid: string;
  readonly vout: number;
  readonly amount: number;
  readonly confirmations: number;
  readonly address: string;
}

/** Spendable confirmed wallet coins of at least `minAmount` coins, largest first (the wizard's list). */
export async function spendableUtxos(rpc: RpcClient, minAmount = 0): Promise<Utxo[]> {
  const coins = await rpc.call('listunspent', [1]);
  return (
    coins
      .filter((c) => c.spendable && c.amount >= minAmount)
      .sort((a, b) => b.amount - a.amount)
      // The wallet's own spendable coins are at its addresses: each has one.
      .flatMap(({ txid, vout, amount, confirmations, address }) => (address === undefined ? [] : [{ txid, vout, amount, confirmations, address }]))
  );
}
