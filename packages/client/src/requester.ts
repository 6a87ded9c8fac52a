/**
 * What a requester's tools share (cs-bridge ask, the dashboard's ask form): the prompt's hash as a
 * REQUEST names it, and the wallet address that pays a REQUEST's escrow.
 */
import { createHash } from 'node:crypto';
import type { RpcClient } from './client.ts';

/** A REQUEST's prompt_hash: the SHA-256 of the prompt's UTF-8 bytes, in hex. */
export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

/** Coins (a JSON number from the node, at most 8 decimals) as base units; exact below 2^53 base units, which MAX_MONEY is. */
function unitsOf(coins: number): bigint {
  return BigInt(Math.round(coins * 1e8));
}

/**
 * The wallet address whose confirmed coins best cover `escrow` (base units), or null when none
 * holds more: the REQUEST spends the requester's own coins. Staked addresses are left out, since
 * their coins pay the staker's commits and reveals.
 */
export async function pickRequester(rpc: RpcClient, escrow: bigint): Promise<string | null> {
  const coins = await rpc.call('listunspent', [1]);
  const staked = new Set((await rpc.call('listopoistakes')).map((s) => s.miner_address));
  const byAddress = new Map<string, bigint>();
  for (const c of coins) {
    if (!c.spendable || !c.address || staked.has(c.address)) continue;
    byAddress.set(c.address, (byAddress.get(c.address) ?? 0n) + unitsOf(c.amount));
  }
  const best = [...byAddress].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0))[0];
  return best && best[1] > escrow ? best[0] : null;
}
