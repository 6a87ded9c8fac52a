/**
 * Spending from the wallet: sendtoaddress/sendmany (fund, sign, store, submit) and
 * fundrawtransaction (fund only), over the wallet's spendable coins, its fee policy and its
 * change addresses.
 */
import { hash160, hashToHex, toHex, type Transaction, type TxIn } from '@cs/consensus';
import type { AcceptFailure } from '../mempool/results.ts';
import { DUST_RELAY_TX_FEE } from '../policy/policy.ts';
import { listCoins, type WalletCoin } from './coins.ts';
import { eligibilityFilters, type CoinStanding } from './eligibility.ts';
import { WalletError } from './errors.ts';
import { LONG_TERM_FEE_RATE, chooseFeeRate, discardRate, type FeeChoice, type FeeRequest } from './fee-policy.ts';
import { fundTransaction, type FundedTransaction, type FundingCoin, type FundingRecipient, type SelectableCoin } from './funding.ts';
import type { Keyring } from './keyring.ts';
import { outpointIdOf } from './ledger.ts';
import { INTERNAL, type AddressType } from './records.ts';
import { planInput, plannedInputWeight, signTransaction, type KeySource } from './signer.ts';
import type { Wallet } from './wallet.ts';

/** Core's MAX_BIP125_RBF_SEQUENCE (replaceable) and MAX_SEQUENCE_NONFINAL (final but locktime-enabled). */
const SEQUENCE_REPLACEABLE = 0xfffffffd;
const SEQUENCE_NONFINAL = 0xfffffffe;
/** Core's anti-fee-sniping applies only while the tip is this recent (seconds). */
const MAX_ANTI_FEE_SNIPING_TIP_AGE = 8 * 60 * 60;

/** The wallet's keys for signing: public halves always, private ones only while unlocked (`masterKey`). */
export function walletKeySource(keyring: Keyring, masterKey: Uint8Array | null): KeySource {
  return {
    publicKeyForHash: (h) => keyring.keyForHash(h)?.publicKey,
    privateKeyFor: (publicKey) => keyring.privateKey(keyring.keyForHash(hash160(publicKey))!, masterKey),
    redeemScriptFor: () => undefined,
  };
}

export interface SpendOptions {
  readonly fee: FeeRequest;
  /** Coins need this many confirmations (sendmany's minconf); unconfirmed change of our own counts at 0. */
  readonly minConf: number;
  readonly replaceable: boolean;
  /** Unconfirmed coins from others (fundrawtransaction's include_unsafe). */
  readonly includeUnsafe?: boolean;
  readonly changeType?: AddressType;
  /** A change destination chosen by the caller instead of a new change address. */
  readonly changeScript?: Uint8Array;
  readonly changePosition?: number;
  readonly random?: () => number;
  /** Only coins paying one of these scripts (hex) may be added (an OPoI actor's own coins). */
  readonly fromScripts?: ReadonlySet<string>;
  /**
   * Whether coins of staked OPoI addresses may be used. Ordinary sends leave them alone: they pay
   * the fees of that address's commits and reveals, and a busy wallet would otherwise drain them.
   */
  readonly spendStakedCoins?: boolean;
}

export type SendOutcome =
  | { readonly kind: 'sent'; readonly txid: string; readonly fee: FeeChoice }
  | { readonly kind: 'rejected'; readonly failure: AcceptFailure };

/** What the eligibility rounds need to know of a coin; the mempool figures are Core's getTransactionAncestry. */
function standingOf(wallet: Wallet, coin: WalletCoin): CoinStanding {
  const fromMe = wallet.view.debit(coin.wtx, 'all') > 0n;
  const entry = coin.depth === 0 ? wallet.mempool.get(coin.txid) : undefined;
  if (!entry) return { depth: coin.depth, fromMe, ancestors: 0, descendants: 0 };
  // A spend becomes a descendant of every ancestor too: the fullest of them is what a limit meets.
  let descendants = entry.countWithDescendants;
  for (const a of wallet.mempool.ancestors(entry)) descendants = Math.max(descendants, a.countWithDescendants);
  return { depth: coin.depth, fromMe, ancestors: entry.countWithAncestors, descendants };
}

/** The wallet's coins selection may use, with how each would be signed. */
function fundingCoins(wallet: Wallet, keys: KeySource, opts: SpendOptions): SelectableCoin[] {
  const coins = listCoins(wallet.view, wallet.locks, {
    minDepth: opts.minConf,
    includeUnsafe: opts.includeUnsafe,
    scripts: opts.fromScripts,
  });
  const reserved = opts.spendStakedCoins ? null : wallet.stakedScripts();
  const out: SelectableCoin[] = [];
  for (const c of coins) {
    if (reserved?.has(toHex(c.output.scriptPubKey))) continue;
    const plan = c.spendable ? planInput(c.output.scriptPubKey, keys) : null;
    if (plan) out.push({ outpoint: { txid: c.wtx.tx.txid, vout: c.vout }, output: c.output, plan, standing: standingOf(wallet, c) });
  }
  return out;
}

/** Core's DiscourageFeeSniping: lock to the tip so that a miner re-mining the tip cannot take the transaction along. */
function antiFeeSnipingLocktime(wallet: Wallet, random: () => number): number {
  const tip = wallet.chain.tip;
  if (tip.time < wallet.now() - MAX_ANTI_FEE_SNIPING_TIP_AGE) return 0;
  // Sometimes further back, so that transactions delayed by privacy tools do not stand out.
  return random() < 0.1 ? Math.max(0, tip.height - Math.floor(random() * 100)) : tip.height;
}

interface Funded {
  readonly funded: FundedTransaction;
  readonly fee: FeeChoice;
  readonly change: { readonly type: AddressType; readonly index: number } | null;
}

function fund(
  wallet: Wallet,
  keys: KeySource,
  recipients: readonly FundingRecipient[],
  opts: SpendOptions,
  base: { version: number; locktime: number; preset: readonly { input: TxIn; coin: FundingCoin }[]; addInputs: boolean },
): Funded {
  const { mempool } = wallet;
  const fee = chooseFeeRate(opts.fee, {
    estimator: wallet.feeEstimator,
    payTxFee: wallet.payTxFee,
    fallbackFee: wallet.fallbackFee,
    mempoolMinFee: mempool.minFee(),
    minRelayFee: mempool.info().minrelaytxfee,
  });
  const changeType = opts.changeType ?? 'bech32';
  const reserved = opts.changeScript ? null : wallet.keyring.peek(changeType, INTERNAL);
  const changeScript = opts.changeScript ?? reserved!.script;
  const changePlan = planInput(changeScript, keys);
  // A foreign change address is assumed to be spent like ours (P2WPKH-sized) for the cost of change.
  const changeSpendWeight = changePlan ? plannedInputWeight(changePlan) : 271;
  const funded = fundTransaction({
    version: base.version,
    locktime: base.locktime,
    sequence: opts.replaceable ? SEQUENCE_REPLACEABLE : SEQUENCE_NONFINAL,
    recipients,
    preset: base.preset,
    candidates: fundingCoins(wallet, keys, opts),
    filters: eligibilityFilters({
      ancestorLimit: mempool.limits.ancestorCount,
      descendantLimit: mempool.limits.descendantCount,
      includeUnsafe: opts.includeUnsafe ?? false,
    }),
    addInputs: base.addInputs,
    feeRate: fee.rate,
    discardRate: discardRate(wallet.feeEstimator),
    longTermRate: LONG_TERM_FEE_RATE,
    dustRelayFee: DUST_RELAY_TX_FEE,
    changeScript,
    changeSpendWeight,
    changePosition: opts.changePosition,
    random: opts.random ?? Math.random,
  });
  const change = reserved && funded.changePosition >= 0 ? { type: changeType, index: reserved.index } : null;
  return { funded, fee, change };
}

/**
 * sendtoaddress / sendmany: funds, signs, stores and submits. Needs the wallet unlocked. A
 * mempool refusal is returned (and the transaction forgotten again) for the caller to report.
 */
export function send(
  wallet: Wallet,
  recipients: readonly FundingRecipient[],
  opts: SpendOptions,
  comment: { comment: string; commentTo: string },
): SendOutcome {
  const masterKey = wallet.encryption.requireKey();
  const keys = walletKeySource(wallet.keyring, masterKey);
  const random = opts.random ?? Math.random;
  const { funded, fee, change } = fund(wallet, keys, recipients, opts, {
    version: 2,
    locktime: antiFeeSnipingLocktime(wallet, random),
    preset: [],
    addInputs: true,
  });
  const { tx, errors } = signTransaction(
    funded.tx,
    funded.coins.map((c) => c.output),
    keys,
  );
  if (errors.length > 0) throw new WalletError('create-failed', 'Signing transaction failed');
  const submitted = wallet.commit(tx, change, comment);
  return submitted.ok ? { kind: 'sent', txid: tx.txidHex, fee } : { kind: 'rejected', failure: submitted.failure };
}

/**
 * An OPoI action (opoi/wallet-actions.ts): `preset` coins are spent first and `recipients` paid in
 * order, so that consensus finds the escrow, collateral or payout outputs where it looks; coins of
 * `opts.fromScripts` pay the rest and the fee, and change goes last, to `opts.changeScript`.
 * Signed with SIGHASH_ALL, stored and submitted like any send.
 */
export function sendAction(
  wallet: Wallet,
  recipients: readonly FundingRecipient[],
  preset: readonly FundingCoin[],
  opts: SpendOptions,
): SendOutcome & { readonly tx?: Transaction } {
  const masterKey = wallet.encryption.requireKey();
  const keys = walletKeySource(wallet.keyring, masterKey);
  const random = opts.random ?? Math.random;
  const sequence = opts.replaceable ? SEQUENCE_REPLACEABLE : SEQUENCE_NONFINAL;
  const { funded, fee, change } = fund(
    wallet,
    keys,
    recipients,
    { ...opts, changePosition: recipients.length },
    {
      version: 2,
      locktime: antiFeeSnipingLocktime(wallet, random),
      preset: preset.map((coin) => ({ input: { prevout: coin.outpoint, scriptSig: new Uint8Array(0), sequence, witness: [] }, coin })),
      addInputs: true,
    },
  );
  const { tx, errors } = signTransaction(
    funded.tx,
    funded.coins.map((c) => c.output),
    keys,
  );
  if (errors.length > 0) throw new WalletError('create-failed', 'Signing transaction failed');
  const submitted = wallet.commit(tx, change, { comment: '', commentTo: '' });
  return submitted.ok ? { kind: 'sent', txid: tx.txidHex, fee, tx } : { kind: 'rejected', failure: submitted.failure };
}

export interface FundRawResult {
  readonly tx: Transaction;
  readonly fee: bigint;
  readonly changePosition: number;
}

/**
 * fundrawtransaction: adds inputs (after the given ones) and change to `tx`, which keeps its
 * outputs in order (less the fee for those that subtract it). Inputs already in `tx` must be the
 * wallet's coins. The change address used is kept as used; the result is unsigned.
 */
export function fundRaw(
  wallet: Wallet,
  tx: Transaction,
  subtractFrom: ReadonlySet<number>,
  opts: SpendOptions & { addInputs: boolean; lockUnspents: boolean },
): FundRawResult {
  const keys = walletKeySource(wallet.keyring, null);
  const preset = tx.inputs.map((input) => {
    const wtx = wallet.ledger.get(hashToHex(input.prevout.txid));
    const output = wtx?.tx.outputs[input.prevout.vout];
    const plan = output ? planInput(output.scriptPubKey, keys) : null;
    if (!output || !plan) throw new WalletError('wallet', `Not solvable pre-selected input ${outpointIdOf(input.prevout)}`);
    return { input, coin: { outpoint: input.prevout, output, plan } };
  });
  const recipients = tx.outputs.map((o, i) => ({ script: o.scriptPubKey, amount: o.value, subtractFee: subtractFrom.has(i) }));
  const { funded, change } = fund(wallet, keys, recipients, opts, { version: tx.version, locktime: tx.locktime, preset, addInputs: opts.addInputs });
  wallet.store.write((w) => {
    if (change) wallet.keyring.markUsed(change.type, INTERNAL, change.index, w);
    if (opts.lockUnspents) {
      for (const c of funded.coins.slice(preset.length)) wallet.locks.lock({ txid: hashToHex(c.outpoint.txid), vout: c.outpoint.vout }, false, w);
    }
  });
  return { tx: funded.tx, fee: funded.fee, changePosition: funded.changePosition };
}
