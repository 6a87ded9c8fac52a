import { toHex, type Transaction } from '@cs/consensus';
import type { Coin } from '../chain/coins.ts';

/** What one transaction does to one watched address, in base units. */
export interface AddressActivity {
  /** The address's output script, hex: what subscriptions are indexed by. */
  readonly script: string;
  readonly address: string;
  /** Outputs paying the address. */
  readonly received: bigint;
  /** Coins of the address that the inputs spend. */
  readonly sent: bigint;
}

/**
 * The watched addresses a transaction touches: outputs paying to them, and inputs spending their
 * coins. `spent` holds the coin each input spends, in input order (empty for a coinbase; an
 * undefined entry is a coin that could not be found and counts for nothing). `watched` maps an
 * output script (hex) to its address when some client watches it.
 */
export function addressActivity(
  tx: Transaction,
  spent: readonly (Coin | undefined)[],
  watched: (script: string) => string | undefined,
): AddressActivity[] {
  const byScript = new Map<string, { script: string; address: string; received: bigint; sent: bigint }>();
  const touch = (scriptPubKey: Uint8Array) => {
    const script = toHex(scriptPubKey);
    const address = watched(script);
    if (address === undefined) return undefined;
    const totals = byScript.get(script) ?? { script, address, received: 0n, sent: 0n };
    byScript.set(script, totals);
    return totals;
  };
  for (const out of tx.outputs) {
    const totals = touch(out.scriptPubKey);
    if (totals) totals.received += out.value;
  }
  for (const coin of spent) {
    const totals = coin && touch(coin.scriptPubKey);
    if (totals) totals.sent += coin.value;
  }
  return [...byScript.values()];
}
