/**
 * The wallet's OPoI transactions. Each is an ordinary wallet send with its outputs in the places
 * consensus looks (escrow, bond, collateral or payout first, the payload after). An actor's step
 * is funded from the acting address's own coins with the change going back to it, and signed
 * with SIGHASH_ALL by that address's key, which is what makes the payload the actor's
 * (docs/protocol.md, OPoI). What no actor signs (a PUBLISH, a payout, a collateral's release) is
 * funded from any of the wallet's coins, staked addresses' last; held coins (escrow, bond, collateral) are spent with an
 * empty scriptSig, the 'escrow' signing plan.
 */
import {
  type Actor,
  ActorType,
  type AuditRecord,
  type OpoiKind,
  type OpoiPayload,
  type RequestRecord,
  type StakeRecord,
  type Transaction,
  actorFromScript,
  actorScript,
  collateralScript,
  escrowScript,
  hashFromHex,
  heldCoins,
  opoiPayloadScript,
  payoutOutputs,
  releaseOutput,
  toHex,
  hashToHex,
} from '@cs/consensus';
import { WalletError } from '../wallet/errors.ts';
import type { FundingCoin, FundingRecipient } from '../wallet/funding.ts';
import type { FeeRequest } from '../wallet/fee-policy.ts';
import { listCoins } from '../wallet/coins.ts';
import { sendAction, walletKeySource, type SendOutcome } from '../wallet/send.ts';
import { planInput } from '../wallet/signer.ts';
import type { Wallet } from '../wallet/wallet.ts';

const ECONOMICAL: FeeRequest = { mode: 'unset' };

/** The actor of a wallet address script, or the wallet error the RPC reports as -5. */
export function actorOf(script: Uint8Array, what: string): Actor {
  const actor = actorFromScript(script);
  if (!actor) throw new WalletError('invalid-address-or-key', `${what} must be a P2WPKH or P2PKH address`);
  return actor;
}

/** The actor of an actor key (42 hex digits: type byte, key hash), as records hold it. */
export function actorOfKey(key: string): Actor {
  return { type: key.startsWith('00') ? ActorType.P2WPKH : ActorType.P2PKH, hash: Buffer.from(key.slice(2), 'hex') };
}

/** The wallet's spendable coins of one address, largest first. */
function coinsOf(wallet: Wallet, script: Uint8Array): FundingCoin[] {
  const keys = walletKeySource(wallet.keyring, null);
  const coins = listCoins(wallet.view, wallet.locks, { scripts: new Set([toHex(script)]) });
  const out: FundingCoin[] = [];
  for (const c of coins) {
    const plan = c.spendable ? planInput(c.output.scriptPubKey, keys) : null;
    if (plan) out.push({ outpoint: { txid: hashFromHex(c.txid), vout: c.vout }, output: c.output, plan });
  }
  return out.sort((a, b) => (a.output.value < b.output.value ? 1 : a.output.value > b.output.value ? -1 : 0));
}

/**
 * Unconfirmed wallet transactions that left the mempool (an OPoI action whose window the chain
 * passed, for one) and spend a coin paying `script`: as in Core, they hold the coin until abandoned.
 */
function strandedSpenders(wallet: Wallet, script: Uint8Array): string[] {
  const { view } = wallet;
  const hex = toHex(script);
  const out = new Set<string>();
  for (const wtx of view.ledger.all()) {
    wtx.tx.outputs.forEach((output, vout) => {
      if (toHex(output.scriptPubKey) !== hex) return;
      // The spender the wallet counts (not abandoned, conflicted or displaced in the mempool).
      const spender = view.spentBy(wtx.txid, vout);
      if (spender && view.depth(spender) === 0 && !view.inMempool(spender)) out.add(spender.txid);
    });
  }
  return [...out];
}

/**
 * Sends an action of `actor`: `first` (or the actor's largest coin) is spent first, so the actor's
 * signature is in the transaction; other coins of the actor's address pay the rest.
 */
function act(wallet: Wallet, actor: Actor, recipients: FundingRecipient[], first?: FundingCoin): SendOutcome & { tx?: Transaction } {
  if (!wallet.keyring.keyForHash(actor.hash)) {
    throw new WalletError('invalid-address-or-key', "The acting address is not this wallet's: its key must be in the node wallet");
  }
  const script = actorScript(actor);
  const preset = first ?? coinsOf(wallet, script)[0];
  if (!preset) {
    const stranded = strandedSpenders(wallet, script);
    throw new WalletError(
      'insufficient-funds',
      stranded.length > 0
        ? `Insufficient funds: the address's coins are spent by unconfirmed transactions no longer in the mempool (${stranded.join(', ')}); abandontransaction those that can never confirm to spend their coins again`
        : `Insufficient funds: the address has no spendable coin to sign and pay for this OPoI transaction with; send it some coins`,
    );
  }
  return sendAction(wallet, recipients, [preset], {
    fee: ECONOMICAL,
    minConf: 0,
    replaceable: true,
    changeScript: script,
    fromScripts: new Set([toHex(script)]),
    spendStakedCoins: true,
  });
}

const payloadRecipient = (p: OpoiPayload): FundingRecipient => ({ script: opoiPayloadScript(p), amount: 0n, subtractFee: false });

export function sendRequest(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.REQUEST }, escrow: bigint) {
  return act(wallet, p.requester, [{ script: escrowScript(p.requestId), amount: escrow, subtractFee: false }, payloadRecipient(p)]);
}

/** COMMIT, REVEAL, RENEW and UNSTAKE: a payload and nothing else. */
export function sendMinerAction(wallet: Wallet, p: OpoiPayload & { miner: Actor }) {
  return act(wallet, p.miner, [payloadRecipient(p)]);
}

/** VERDICT_COMMIT and VERDICT_REVEAL: the auditor's payload and nothing else. */
export function sendAuditorAction(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.VERDICT_COMMIT | OpoiKind.VERDICT_REVEAL }) {
  return act(wallet, p.auditor, [payloadRecipient(p)]);
}

/** CHALLENGE: output 0 holds the bond in the request's escrow form. */
export function sendChallenge(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.CHALLENGE }, bond: bigint) {
  return act(wallet, p.challenger, [{ script: escrowScript(p.requestId), amount: bond, subtractFee: false }, payloadRecipient(p)]);
}

/** MANIFEST: the payload output itself carries the burned registration fee. */
export function sendManifest(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.MANIFEST }, fee: bigint) {
  return act(wallet, p.registrant, [{ script: opoiPayloadScript(p), amount: fee, subtractFee: false }]);
}

/**
 * STAKE: the chosen coin of the staker's address is spent; output 0 locks `amount` in the
 * staker's collateral form, which leaves the wallet's coins (and balance) until its release.
 */
export function sendStake(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.STAKE }, collateral: { txid: string; vout: number }, amount: bigint) {
  const script = actorScript(p.miner);
  const chosen = coinsOf(wallet, script).find((c) => hashToHex(c.outpoint.txid) === collateral.txid && c.outpoint.vout === collateral.vout);
  if (!chosen) {
    throw new WalletError(
      'invalid-parameter',
      `Invalid parameter, collateral ${collateral.txid}:${collateral.vout} is not a spendable coin of the staking address in this wallet`,
    );
  }
  return act(wallet, p.miner, [{ script: collateralScript(p.miner), amount, subtractFee: false }, payloadRecipient(p)], chosen);
}

/**
 * A step no actor signs, its fee paid from any of the wallet's coins: those of staked addresses
 * only when the others do not do, since they pay the stakers' commits, reveals and verdicts.
 */
function sendFromAnyCoin(wallet: Wallet, recipients: FundingRecipient[], preset: FundingCoin[]) {
  const opts = { fee: ECONOMICAL, minConf: 0, replaceable: true } as const;
  try {
    return sendAction(wallet, recipients, preset, { ...opts, spendStakedCoins: false });
  } catch (e) {
    if (!(e instanceof WalletError) || e.kind !== 'insufficient-funds') throw e;
    return sendAction(wallet, recipients, preset, { ...opts, spendStakedCoins: true });
  }
}

/** PUBLISH: the prompt and answer on chain, signed by nobody in particular. */
export function sendPublish(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.PUBLISH }) {
  return sendFromAnyCoin(wallet, [payloadRecipient(p)], []);
}

/** A held coin as a funding input: an empty scriptSig spends it (consensus escrow.ts). */
function heldCoin(txid: string, vout: number, value: bigint, scriptPubKey: Uint8Array): FundingCoin {
  return { outpoint: { txid: hashFromHex(txid), vout }, output: { value, scriptPubKey }, plan: { kind: 'escrow' } };
}

/**
 * The payout of a settled request: every coin it holds in (the escrow, a challenge's bond, a
 * forfeited collateral: consensus heldCoins), its payout outputs out in order (consensus
 * payoutOutputs), the fee from any of the wallet's coins.
 */
export function sendPayout(wallet: Wallet, r: RequestRecord, audit?: AuditRecord) {
  const escrow = escrowScript(Buffer.from(r.id, 'hex'));
  const held = heldCoins(r, audit).map(({ txid, vout }) => {
    if (txid === r.txid) return heldCoin(txid, vout, r.escrowValue, escrow);
    if (audit && txid === audit.challengeTxid && vout === 0) return heldCoin(txid, vout, audit.bond, escrow);
    return heldCoin(txid, vout, audit!.forfeited, collateralScript(actorOfKey(r.winner!)));
  });
  const recipients = payoutOutputs(r, audit).map((o) => ({ script: Buffer.from(o.script, 'hex'), amount: o.value, subtractFee: false }));
  return sendFromAnyCoin(wallet, recipients, held);
}

/** The release of an UNSTAKED, unlocked collateral: output 0 pays the staker all of it, the fee from any of the wallet's coins. */
export function sendRelease(wallet: Wallet, s: StakeRecord) {
  const collateral = heldCoin(s.collateralTxid, s.collateralVout, s.amount, collateralScript(actorOfKey(s.miner)));
  const out = releaseOutput(s);
  return sendFromAnyCoin(wallet, [{ script: Buffer.from(out.script, 'hex'), amount: out.value, subtractFee: false }], [collateral]);
}
