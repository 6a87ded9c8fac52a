/**
 * Wallet transactions as JSON, shaped as Core's WalletTxToJSON and ListTransactions print them:
 * the per-transaction fields (confirmations, block, trust, conflicts, times) and the per-output
 * "send"/"receive"/"generate" entries of listtransactions, listsinceblock and gettransaction.
 */
import { scriptToAddress, type ChainParams, type TxOut } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { Mempool } from '../../mempool/mempool.ts';
import type { JsonObject } from '../../format/json-value.ts';
import type { MineFilter, TxView } from '../tx-view.ts';
import type { WalletTx } from '../wallet-tx.ts';

/** Core's MAX_BIP125_RBF_SEQUENCE. */
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;

export interface TxJsonContext {
  readonly view: TxView;
  readonly mempool: Mempool;
  readonly params: ChainParams;
}

/**
 * Core's isRBFOptIn as getwalletinfo-style output: "yes" when the transaction or an unconfirmed
 * ancestor in the mempool signals BIP125, "unknown" when it is not in the mempool (its ancestors
 * cannot be checked), "no" otherwise. Confirmed transactions are "no".
 */
function bip125(c: TxJsonContext, wtx: WalletTx, depth: number): string {
  if (depth > 0) return 'no';
  if (wtx.tx.inputs.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE)) return 'yes';
  const entry = c.mempool.get(wtx.txid);
  if (!entry) return 'unknown';
  for (const a of c.mempool.ancestors(entry)) if (a.tx.inputs.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE)) return 'yes';
  return 'no';
}

/** Core's WalletTxToJSON. */
export function walletTxFields(c: TxJsonContext, wtx: WalletTx): JsonObject {
  const depth = c.view.depth(wtx);
  const s = wtx.state;
  return {
    confirmations: depth,
    generated: wtx.tx.isCoinbase() ? true : undefined,
    ...(s.kind === 'confirmed'
      ? { blockhash: s.blockHash, blockheight: s.height, blockindex: s.index, blocktime: s.blockTime }
      : { trusted: c.view.isTrusted(wtx) }),
    txid: wtx.txid,
    wtxid: wtx.tx.wtxidHex,
    walletconflicts: c.view.walletConflicts(wtx),
    mempoolconflicts: c.view.mempoolConflicts(wtx),
    comment: wtx.comment || undefined,
    to: wtx.commentTo || undefined,
    time: wtx.time,
    timereceived: wtx.timeReceived,
    'bip125-replaceable': bip125(c, wtx, depth),
  };
}

interface OutputEntry {
  readonly output: TxOut;
  readonly vout: number;
}

/** Core's CachedTxGetAmounts: the outputs the wallet sent (when it funded the transaction) and received, and the fee. */
function amounts(c: TxJsonContext, wtx: WalletTx, filter: MineFilter, includeChange: boolean) {
  const debit = c.view.debit(wtx, filter);
  const fee = debit > 0n ? debit - wtx.tx.outputs.reduce((sum, o) => sum + o.value, 0n) : 0n;
  const sent: OutputEntry[] = [];
  const received: OutputEntry[] = [];
  wtx.tx.outputs.forEach((output, vout) => {
    const mine = c.view.matches(output.scriptPubKey, filter);
    if (debit > 0n) {
      // Change is not reported as sent (or received) unless asked for.
      if (!includeChange && c.view.isChange(output)) return;
    } else if (!mine) {
      return;
    }
    if (debit > 0n) sent.push({ output, vout });
    if (mine) received.push({ output, vout });
  });
  return { sent, received, fee };
}

export interface ListOptions {
  readonly filter: MineFilter;
  /** Only received entries to addresses with this label (and no sends), as Core's label filter. */
  readonly label?: string;
  readonly includeChange?: boolean;
  /** Received entries need at least this depth (listsinceblock's removed list passes a huge negative). */
  readonly minDepth?: number;
}

/** Core's ListTransactions: one entry per sent and per received output of `wtx`, appended to `out`. */
export function listTransactionEntries(c: TxJsonContext, wtx: WalletTx, opts: ListOptions, out: JsonObject[]): void {
  const { sent, received, fee } = amounts(c, wtx, opts.filter, opts.includeChange ?? false);
  const involvesWatchonly = (o: TxOut) => (c.view.mine(o.scriptPubKey) === 'watchonly' ? true : undefined);
  const address = (o: TxOut) => scriptToAddress(o.scriptPubKey, c.params.address) ?? undefined;
  const label = (o: TxOut) => c.view.keyring.label(o.scriptPubKey);
  const abandoned = c.view.isAbandoned(wtx);
  if ((sent.length > 0 || fee !== 0n) && opts.label === undefined) {
    for (const { output, vout } of sent) {
      out.push({
        involvesWatchonly: involvesWatchonly(output),
        address: address(output),
        category: 'send',
        amount: amountToJson(-output.value),
        label: label(output),
        vout,
        fee: amountToJson(-fee),
        ...walletTxFields(c, wtx),
        abandoned,
      });
    }
  }
  const depth = c.view.depth(wtx);
  if (received.length === 0 || depth < (opts.minDepth ?? 0)) return;
  for (const { output, vout } of received) {
    const l = label(output);
    if (opts.label !== undefined && l !== opts.label) continue;
    let category = 'receive';
    if (wtx.tx.isCoinbase()) category = depth < 1 ? 'orphan' : c.view.isImmatureCoinbase(wtx) ? 'immature' : 'generate';
    out.push({
      involvesWatchonly: involvesWatchonly(output),
      address: address(output),
      category,
      amount: amountToJson(output.value),
      label: l,
      vout,
      ...walletTxFields(c, wtx),
    });
  }
}
