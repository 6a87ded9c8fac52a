/**
 * A transaction the wallet keeps (Core's CWalletTx), with its state (tx-state.ts). Balances,
 * coins and listings are all computed from these.
 */
import type { TxRecord } from './records.ts';

export interface WalletTx extends TxRecord {
  readonly txid: string;
}

export function walletTx(record: TxRecord): WalletTx {
  return { ...record, txid: record.tx.txidHex };
}
