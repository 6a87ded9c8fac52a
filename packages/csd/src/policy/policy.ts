import { COIN, MAX_BLOCK_SIGOPS_COST, WITNESS_SCALE_FACTOR } from '@cs/consensus';
import type { FeeRate } from './feerate.ts';

/**
 * Relay policy: the rules a node applies to unconfirmed transactions on top of consensus. None
 * of them makes a block invalid; they keep the mempool cheap to validate, hard to flood and
 * minable. The values are Bitcoin Core's (src/policy/policy.h), with the reasoning behind each.
 */

/**
 * Highest standard transaction version. Core 28 allows 3 (TRUC, BIP 431); this chain has no TRUC
 * rules, so version 3 stays non-standard until it gets them.
 */
export const TX_MAX_STANDARD_VERSION = 2;

/**
 * A tenth of the block weight limit. Signature hashing of legacy inputs is quadratic in the
 * transaction size, so capping relayed transactions bounds the CPU one of them can cost, and no
 * single transaction can fill more than a tenth of a block template.
 */
export const MAX_STANDARD_TX_WEIGHT = 400_000;

/**
 * A stripped transaction of exactly 64 bytes can pose as an inner node of a merkle tree
 * (CVE-2017-12842); Core refuses everything below 65 bytes without witness.
 */
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;

/**
 * The largest standard scriptSig spends a 15-of-15 P2SH multisig with compressed keys: a
 * 15 × (33 + 1) + 3 = 513-byte redeem script, pushed after 15 signatures of up to 73 bytes and
 * the CHECKMULTISIG dummy: 1 + 15 × (73 + 1) + (513 + 3) = 1627 bytes, rounded up to 1650.
 */
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;

/** Enough for that 15-of-15 multisig: a P2SH redeem script may count at most 15 sigops. */
export const MAX_P2SH_SIGOPS = 15;

/** A fifth of the block's sigop budget (80,000 / 5), so five such transactions fill it. */
export const MAX_STANDARD_TX_SIGOPS_COST = MAX_BLOCK_SIGOPS_COST / 5;

/**
 * P2WSH limits, enough for an n-of-100 multisig written with OP_CHECKSIG/OP_ADD/OP_EQUAL: at most
 * 100 stack items besides the witness script, each at most 80 bytes (a 73-byte signature fits),
 * and a witness script of at most 3600 bytes (100 × (33 + 1 + 1) plus slack).
 */
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
export const MAX_STANDARD_P2WSH_STACK_ITEM_SIZE = 80;
export const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3600;

/**
 * One OP_RETURN output of at most 83 script bytes: OP_RETURN, OP_PUSHDATA1, a length byte and 80
 * bytes of data (-datacarriersize).
 */
export const MAX_OP_RETURN_RELAY = 83;

/**
 * -dustrelayfee, units per kvB: an output is dust when spending it would cost more than this rate
 * charges for the output plus the input that spends it (546 units for P2PKH, 294 for P2WPKH).
 */
export const DUST_RELAY_TX_FEE: FeeRate = 3000n;

/** -minrelaytxfee: 1 unit per virtual byte, the floor below which transactions are free riders. */
export const DEFAULT_MIN_RELAY_TX_FEE: FeeRate = 1000n;

/**
 * -incrementalrelayfee: the least fee rate a replacement must add on top of what it replaces, and
 * the step by which the mempool minimum rises above an evicted package.
 */
export const DEFAULT_INCREMENTAL_RELAY_FEE: FeeRate = 1000n;

/**
 * -bytespersigop: for fee and size purposes a transaction weighs at least 20 weight units per
 * unit of sigop cost (Core's GetVirtualTransactionSize), so sigop-heavy transactions pay for the
 * sigop budget they consume. A block's own ratio is 4,000,000 / 80,000 = 50; 20 leaves ordinary
 * transactions unaffected.
 */
export const DEFAULT_BYTES_PER_SIGOP = 20;

/** -permitbaremultisig: bare (non-P2SH) multisig outputs of up to 3 keys are standard. */
export const DEFAULT_PERMIT_BARE_MULTISIG = true;

/**
 * testmempoolaccept / sendrawtransaction default maxfeerate, 0.10 coins per kvB: far above any
 * sensible rate, low enough to catch an amount typed into the fee.
 */
export const DEFAULT_MAX_RAW_TX_FEE_RATE: FeeRate = COIN / 10n;

export interface PolicyOptions {
  /** Enforce standardness (IsStandardTx, AreInputsStandard, IsWitnessStandard); -acceptnonstdtxn inverts it. */
  readonly requireStandard: boolean;
  readonly permitBareMultisig: boolean;
  /** Largest standard OP_RETURN script; null refuses data carrier outputs (-datacarrier=0). */
  readonly maxDatacarrierBytes: number | null;
  readonly dustRelayFee: FeeRate;
  readonly minRelayFee: FeeRate;
  readonly incrementalRelayFee: FeeRate;
  readonly bytesPerSigop: number;
}

export const DEFAULT_POLICY: PolicyOptions = {
  requireStandard: true,
  permitBareMultisig: DEFAULT_PERMIT_BARE_MULTISIG,
  maxDatacarrierBytes: MAX_OP_RETURN_RELAY,
  dustRelayFee: DUST_RELAY_TX_FEE,
  minRelayFee: DEFAULT_MIN_RELAY_TX_FEE,
  incrementalRelayFee: DEFAULT_INCREMENTAL_RELAY_FEE,
  bytesPerSigop: DEFAULT_BYTES_PER_SIGOP,
};

/** Core's GetVirtualTransactionSize: weight, or sigop cost × bytesPerSigop if larger, in vbytes rounded up. */
export function virtualSize(weight: number, sigopCost: number, bytesPerSigop: number): number {
  return Math.ceil(Math.max(weight, sigopCost * bytesPerSigop) / WITNESS_SCALE_FACTOR);
}
