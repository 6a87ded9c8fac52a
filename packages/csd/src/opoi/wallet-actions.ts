/**
 * The wallet's OPoI transactions. Each is an ordinary wallet send with its outputs in the places
 * consensus looks (escrow, collateral or payout first, the payload after), funded from the acting
 * address's own coins with the change going back to it, and signed with SIGHASH_ALL by that
 * address's key, which is what makes the payload the actor's (docs/protocol.md, OPoI).
 */
import {
  type Actor,
  type OpoiKind,
  type OpoiPayload,
  type RequestRecord,
  type Transaction,
  actorFromScript,
  actorScript,
  escrowScript,
  hashFromHex,
  opoiPayloadScript,
  payoutOutputs,
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

/** The wallet's spendable coins of one address, largest first. */
function coinsOf(wallet: Wallet, script: Uint8Array): FundingCoin[] {
  const keys = walletKeySource(wallet.keyring, null);
  const coins = listCoins(wallet.view, wallet.locks, {
    scripts: new Set([toHex(script)]),
    isCollateral: (txid, vout) => wallet.isCollateral(txid, vout),
  });
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
        : `Insufficient funds: the address has no spendable coin to sign and pay for this OPoI transaction with (collateral is locked); send it some coins`,
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

/** MANIFEST: the payload output itself carries the burned registration fee. */
export function sendManifest(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.MANIFEST }, fee: bigint) {
  return act(wallet, p.registrant, [{ script: opoiPayloadScript(p), amount: fee, subtractFee: false }]);
}

/** STAKE: the chosen coin of the staker's address is spent; output 0 locks `amount` as collateral. */
export function sendStake(wallet: Wallet, p: OpoiPayload & { kind: OpoiKind.STAKE }, collateral: { txid: string; vout: number }, amount: bigint) {
  const script = actorScript(p.miner);
  const chosen = coinsOf(wallet, script).find((c) => hashToHex(c.outpoint.txid) === collateral.txid && c.outpoint.vout === collateral.vout);
  if (!chosen) {
    throw new WalletError(
      'invalid-parameter',
      `Invalid parameter, collateral ${collateral.txid}:${collateral.vout} is not a spendable coin of the staking address in this wallet`,
    );
  }
  return act(wallet, p.miner, [{ script, amount, subtractFee: false }, payloadRecipient(p)], chosen);
}

/**
 * The payout of a resolved request: the escrow in, the winner's pay and the requester's change out
 * (or the whole escrow back to the requester), the fee from any of the wallet's coins.
 */
export function sendPayout(wallet: Wallet, r: RequestRecord) {
  const escrow: FundingCoin = {
    outpoint: { txid: hashFromHex(r.txid), vout: 0 },
    output: { value: r.escrowValue, scriptPubKey: escrowScript(Buffer.from(r.id, 'hex')) },
    plan: { kind: 'escrow' },
  };
  const recipients = payoutOutputs(r).map((o) => ({ script: Buffer.from(o.script, 'hex'), amount: o.value, subtractFee: false }));
  return sendAction(wallet, recipients, [escrow], { fee: ECONOMICAL, minConf: 0, replaceable: true, spendStakedCoins: true });
}
