/**
 * Building a funded transaction (Core's CreateTransactionInternal): choose coins for the
 * recipients and the fee, add change when it is worth keeping, size the transaction with
 * maximum-size signatures and settle the fee exactly — taking it from the recipients that
 * subtract it, or leaving what a changeless set overshoots to the miner. The result is unsigned.
 */
import { Transaction, compactSizeLength, outpointKey, type OutPoint, type TxIn, type TxOut } from '@cs/consensus';
import { feeForSize, type FeeRate } from '../policy/feerate.ts';
import { MAX_STANDARD_TX_WEIGHT } from '../policy/policy.ts';
import { dustThreshold } from '../policy/standard.ts';
import { changeOf, changeTarget, selectCoins, shuffle, type Candidate, type Selection, type SelectionParams } from './coin-selection.ts';
import { isEligible, type CoinEligibilityFilter, type CoinStanding } from './eligibility.ts';
import { WalletError } from './errors.ts';
import { MAX_TX_FEE } from './fee-policy.ts';
import { dummySign, plannedInputWeight, type InputPlan } from './signer.ts';

/** A coin the wallet can spend, with how it would be signed. */
export interface FundingCoin {
  readonly outpoint: OutPoint;
  readonly output: TxOut;
  readonly plan: InputPlan;
}

/** A coin selection may add, with what the eligibility rounds look at. */
export interface SelectableCoin extends FundingCoin {
  readonly standing: CoinStanding;
}

export interface FundingRecipient {
  readonly script: Uint8Array;
  readonly amount: bigint;
  /** This output pays (its share of) the fee. */
  readonly subtractFee: boolean;
}

export interface FundingRequest {
  readonly version: number;
  readonly locktime: number;
  /** Sequence of the inputs added. */
  readonly sequence: number;
  readonly recipients: readonly FundingRecipient[];
  /** Inputs the caller chose (fundrawtransaction): kept first, in order, as given. */
  readonly preset: readonly { readonly input: TxIn; readonly coin: FundingCoin }[];
  /** Coins selection may add. */
  readonly candidates: readonly SelectableCoin[];
  /** The eligibility rounds (eligibility.ts), strictest first: the first round that pays is used. */
  readonly filters: readonly CoinEligibilityFilter[];
  readonly addInputs: boolean;
  readonly feeRate: FeeRate;
  readonly discardRate: FeeRate;
  readonly longTermRate: FeeRate;
  readonly dustRelayFee: FeeRate;
  readonly changeScript: Uint8Array;
  /** Weight of the input that will one day spend the change. */
  readonly changeSpendWeight: number;
  /** Where the change goes among the outputs; random when absent. */
  readonly changePosition?: number;
  readonly random: () => number;
}

export interface FundedTransaction {
  readonly tx: Transaction;
  readonly fee: bigint;
  /** Index of the change output, -1 without change. */
  readonly changePosition: number;
  /** The coin each input spends, in input order. */
  readonly coins: readonly FundingCoin[];
}

const vbytes = (weight: number) => Math.ceil(weight / 4);

function outputSize(script: Uint8Array): number {
  return 8 + compactSizeLength(script.length) + script.length;
}

function fail(message: string): never {
  throw new WalletError('create-failed', message);
}

export function fundTransaction(req: FundingRequest): FundedTransaction {
  const { recipients, feeRate } = req;
  if (recipients.length === 0) fail('Transaction must have at least one recipient');
  if (recipients.some((r) => r.amount < 0n)) fail('Transaction amounts must not be negative');
  const subtracting = recipients.filter((r) => r.subtractFee).length;
  for (const r of recipients) {
    if (!r.subtractFee && r.amount < dustThreshold({ value: r.amount, scriptPubKey: r.script }, req.dustRelayFee))
      fail('Transaction amount too small');
  }
  const paid = recipients.reduce((sum, r) => sum + r.amount, 0n);

  // Everything but the inputs: version, locktime, counts, outputs, and the segwit marker.
  const nOut = recipients.length + 1;
  const notInputWeight =
    4 * (4 + 4 + compactSizeLength(req.preset.length + 1) + compactSizeLength(nOut)) +
    4 * recipients.reduce((n, r) => n + outputSize(r.script), 0) +
    2;
  const changeFee = feeForSize(feeRate, outputSize(req.changeScript));
  const changeSpendFee = feeForSize(req.discardRate, vbytes(req.changeSpendWeight));
  const changeDust = dustThreshold({ value: 0n, scriptPubKey: req.changeScript }, req.dustRelayFee);
  const params: SelectionParams = {
    target: paid + (subtracting > 0 ? 0n : feeForSize(feeRate, vbytes(notInputWeight))),
    costOfChange: changeSpendFee + changeFee,
    changeTarget: changeTarget(paid, changeFee, req.random),
    minViableChange: changeSpendFee + 1n > changeDust ? changeSpendFee + 1n : changeDust,
    changeFee,
    subtractFee: subtracting > 0,
    random: req.random,
  };
  const candidate = <C extends FundingCoin>(coin: C): Candidate<C> => {
    const weight = vbytes(plannedInputWeight(coin.plan));
    const fee = feeForSize(feeRate, weight);
    return { coin, amount: subtracting > 0 ? coin.output.value : coin.output.value - fee, fee, longTermFee: feeForSize(req.longTermRate, weight) };
  };
  const presetAmount = req.preset.reduce((sum, p) => sum + candidate(p.coin).amount, 0n);
  const presetKeys = new Set(req.preset.map((p) => outpointKey(p.coin.outpoint)));
  const pool = req.addInputs ? req.candidates.filter((c) => !presetKeys.has(outpointKey(c.outpoint))) : [];
  let selection: Selection<SelectableCoin> | null = null;
  for (const filter of req.filters) {
    selection = selectCoins(pool.filter((c) => isEligible(c.standing, filter)).map(candidate), params, presetAmount);
    if (selection) break;
  }
  if (!selection) throw new WalletError('insufficient-funds', 'Insufficient funds');

  const selectedAmount = presetAmount + selection.candidates.reduce((sum, c) => sum + c.amount, 0n);
  let change = changeOf(selectedAmount, params);
  const added = shuffle(
    selection.candidates.map((c) => c.coin),
    req.random,
  );
  const coins = [...req.preset.map((p) => p.coin), ...added];
  const inputs: TxIn[] = [
    ...req.preset.map((p) => p.input),
    ...added.map((c) => ({ prevout: c.outpoint, scriptSig: new Uint8Array(0), sequence: req.sequence, witness: [] })),
  ];
  const inputValue = coins.reduce((sum, c) => sum + c.output.value, 0n);
  const amounts = recipients.map((r) => r.amount);
  const position = change > 0n ? Math.min(req.changePosition ?? Math.floor(req.random() * (recipients.length + 1)), recipients.length) : -1;

  const build = (withChange: bigint): Transaction => {
    const outputs: TxOut[] = recipients.map((r, i) => ({ value: amounts[i], scriptPubKey: r.script }));
    if (withChange > 0n) outputs.splice(position, 0, { value: withChange, scriptPubKey: req.changeScript });
    return new Transaction({ version: req.version, inputs, outputs, locktime: req.locktime });
  };
  const weight = dummySign(
    build(change),
    coins.map((c) => c.plan),
  ).weight;
  const feeNeeded = feeForSize(feeRate, vbytes(weight));
  const currentFee = inputValue - paid - change;
  if (subtracting === 0) {
    if (currentFee < feeNeeded) {
      // The estimate is an upper bound; this only happens for input counts past 252 (a longer count).
      const short = feeNeeded - currentFee;
      if (change - short < params.minViableChange) fail('Fee needed > fee paid');
      change -= short;
    } else if (change > 0n) {
      change += currentFee - feeNeeded;
    }
  } else {
    // Recipients that subtract the fee share what is still missing (the first takes the remainder).
    const toReduce = feeNeeded - currentFee;
    const share = toReduce / BigInt(subtracting);
    let first = true;
    recipients.forEach((r, i) => {
      if (!r.subtractFee) return;
      amounts[i] -= share + (first ? toReduce % BigInt(subtracting) : 0n);
      first = false;
      if (amounts[i] < dustThreshold({ value: amounts[i], scriptPubKey: r.script }, req.dustRelayFee)) {
        fail(
          share > r.amount
            ? 'The transaction amount is too small to pay the fee'
            : 'The transaction amount is too small to send after the fee has been deducted',
        );
      }
    });
  }
  const tx = build(change);
  const fee = inputValue - tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  if (fee > MAX_TX_FEE) fail('Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)');
  if (weight > MAX_STANDARD_TX_WEIGHT) fail('Transaction too large');
  return { tx, fee, changePosition: change > 0n ? position : -1, coins };
}
