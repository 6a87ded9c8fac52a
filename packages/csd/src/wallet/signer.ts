/**
 * Signing transaction inputs (Core's ProduceSignature/SignTransaction for single-key scripts):
 * P2WPKH, P2PKH, P2PK and P2SH-wrapped P2WPKH. The same plans give the size of each input with a
 * maximum-size (low-r) signature (Core's DummySignatureCreator), which is what fees are computed on.
 * Multisig and other script templates are not signed here: such inputs are reported as errors.
 */
import {
  SIGHASH_ALL,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  PrecomputedTxData,
  Transaction,
  bytesEqual,
  compactSizeLength,
  concatBytes,
  ecdsaSignLowR,
  hash160,
  hashToHex,
  legacySignatureHash,
  p2pkhScript,
  p2wpkhScript,
  pushData,
  scriptErrorString,
  signatureToDER,
  solver,
  verifyInput,
  witnessV0SignatureHash,
  type TxIn,
  type TxOut,
} from '@cs/consensus';

/** Where signing finds keys: public halves without any secret (to plan), private ones to sign. */
export interface KeySource {
  publicKeyForHash(keyHash: Uint8Array): Uint8Array | undefined;
  /** The private key of a public key `publicKeyForHash` returned; may throw (a locked wallet). */
  privateKeyFor(publicKey: Uint8Array): Uint8Array;
  /** A P2SH redeem script known for `scriptHash`, if any. */
  redeemScriptFor(scriptHash: Uint8Array): Uint8Array | undefined;
}

/** How an input is signed with one of our keys. */
export type KeyPlan =
  | { readonly kind: 'p2wpkh'; readonly publicKey: Uint8Array }
  | { readonly kind: 'p2pkh'; readonly publicKey: Uint8Array }
  | { readonly kind: 'p2pk'; readonly publicKey: Uint8Array }
  | { readonly kind: 'p2sh-p2wpkh'; readonly publicKey: Uint8Array; readonly redeemScript: Uint8Array };

export type InputPlan =
  | KeyPlan
  /** An OPoI escrow: spent with an empty scriptSig and witness, nothing to sign (planned for its size only). */
  | { readonly kind: 'escrow' };

/**
 * Signatures are ground to a low r (ecdsaSignLowR), so they take at most 70 bytes of DER plus the
 * sighash byte: Core's DummySignatureCreator size for its own keys.
 */
const MAX_SIGNATURE_BYTES = 71;
const DUMMY_SIGNATURE = new Uint8Array(MAX_SIGNATURE_BYTES);

/** How an output script can be spent with the keys at hand, or null when it cannot. */
export function planInput(script: Uint8Array, keys: KeySource): KeyPlan | null {
  const { type, solutions } = solver(script);
  switch (type) {
    case 'witness_v0_keyhash': {
      const publicKey = keys.publicKeyForHash(solutions[0]);
      return publicKey?.length === 33 ? { kind: 'p2wpkh', publicKey } : null;
    }
    case 'pubkeyhash': {
      const publicKey = keys.publicKeyForHash(solutions[0]);
      return publicKey ? { kind: 'p2pkh', publicKey } : null;
    }
    case 'pubkey': {
      const publicKey = keys.publicKeyForHash(hash160(solutions[0]));
      return publicKey && bytesEqual(publicKey, solutions[0]) ? { kind: 'p2pk', publicKey } : null;
    }
    case 'scripthash': {
      const redeemScript = keys.redeemScriptFor(solutions[0]);
      if (!redeemScript) return null;
      const inner = solver(redeemScript);
      if (inner.type !== 'witness_v0_keyhash') return null;
      const publicKey = keys.publicKeyForHash(inner.solutions[0]);
      return publicKey?.length === 33 ? { kind: 'p2sh-p2wpkh', publicKey, redeemScript } : null;
    }
    default:
      return null;
  }
}

/** scriptSig and witness of a planned input carrying `sig` (DER ‖ sighash byte). */
function solution(plan: InputPlan, sig: Uint8Array): { scriptSig: Uint8Array; witness: Uint8Array[] } {
  switch (plan.kind) {
    case 'p2wpkh':
      return { scriptSig: new Uint8Array(0), witness: [sig, plan.publicKey] };
    case 'p2pkh':
      return { scriptSig: concatBytes(pushData(sig), pushData(plan.publicKey)), witness: [] };
    case 'p2pk':
      return { scriptSig: pushData(sig), witness: [] };
    case 'p2sh-p2wpkh':
      return { scriptSig: pushData(plan.redeemScript), witness: [sig, plan.publicKey] };
    case 'escrow':
      return { scriptSig: new Uint8Array(0), witness: [] };
  }
}

/** Serialized bytes an input of this plan adds with a maximum-size signature: scriptSig and witness apart. */
function plannedInputSize(plan: InputPlan): { readonly scriptSig: number; readonly witness: number } {
  const { scriptSig, witness } = solution(plan, DUMMY_SIGNATURE);
  const witnessBytes =
    witness.length === 0 ? 0 : compactSizeLength(witness.length) + witness.reduce((n, w) => n + compactSizeLength(w.length) + w.length, 0);
  return { scriptSig: scriptSig.length, witness: witnessBytes };
}

/**
 * Weight of a spending input in a segwit transaction: outpoint, sequence and scriptSig count four
 * times, the witness once (an input without witness still has its empty stack's count byte).
 */
export function plannedInputWeight(plan: InputPlan): number {
  const { scriptSig, witness } = plannedInputSize(plan);
  return 4 * (32 + 4 + compactSizeLength(scriptSig) + scriptSig + 4) + (witness === 0 ? 1 : witness);
}

/** The transaction with every planned input carrying a maximum-size placeholder signature, to measure. */
export function dummySign(tx: Transaction, plans: readonly InputPlan[]): Transaction {
  return new Transaction({ ...tx, inputs: tx.inputs.map((input, i) => ({ ...input, ...solution(plans[i], DUMMY_SIGNATURE) })) });
}

function scriptCode(plan: KeyPlan, spent: TxOut): Uint8Array {
  // Witness v0 key hashes sign as P2PKH (BIP143); legacy inputs sign the output script itself.
  return plan.kind === 'p2wpkh' || plan.kind === 'p2sh-p2wpkh' ? p2pkhScript(hash160(plan.publicKey)) : spent.scriptPubKey;
}

function signInput(
  tx: Transaction,
  index: number,
  spent: TxOut,
  plan: KeyPlan,
  privateKey: Uint8Array,
  hashType: number,
  txdata: PrecomputedTxData,
): TxIn {
  const code = scriptCode(plan, spent);
  const witnessV0 = plan.kind === 'p2wpkh' || plan.kind === 'p2sh-p2wpkh';
  const sighash = witnessV0 ? witnessV0SignatureHash(code, tx, index, hashType, spent.value, txdata) : legacySignatureHash(code, tx, index, hashType);
  const sig = concatBytes(signatureToDER(ecdsaSignLowR(sighash, privateKey)), Uint8Array.of(hashType & 0xff));
  return { ...tx.inputs[index], ...solution(plan, sig) };
}

/** Core's per-input error of signrawtransaction*. */
export interface InputError {
  readonly index: number;
  readonly error: string;
}

/**
 * Signs every input whose spent output is known and can be planned with `keys`; leaves the others
 * as they are. Then checks every input under the standard script flags and reports the failures
 * with Core's messages (an input nobody could sign fails as "possibly missing key").
 */
export function signTransaction(
  tx: Transaction,
  spent: readonly (TxOut | undefined)[],
  keys: KeySource,
  hashType = SIGHASH_ALL,
): { tx: Transaction; errors: InputError[] } {
  const txdata = new PrecomputedTxData(tx);
  const inputs = tx.inputs.map((input, i) => {
    const out = spent[i];
    const plan = out ? planInput(out.scriptPubKey, keys) : null;
    if (!out || !plan) return input;
    const privateKey = keys.privateKeyFor(plan.publicKey);
    try {
      return signInput(tx, i, out, plan, privateKey, hashType, txdata);
    } finally {
      privateKey.fill(0);
    }
  });
  const signed = new Transaction({ ...tx, inputs });
  const signedData = new PrecomputedTxData(signed);
  const errors: InputError[] = [];
  signed.inputs.forEach((_, i) => {
    const out = spent[i];
    if (!out) {
      errors.push({ index: i, error: 'Input not found or already spent' });
      return;
    }
    const result = verifyInput(signed, i, out, STANDARD_SCRIPT_VERIFY_FLAGS, signedData);
    if (result.ok) return;
    let error = scriptErrorString(result.error);
    if (result.error === 'INVALID_STACK_OPERATION') error = 'Unable to sign input, invalid stack size (possibly missing key)';
    else if (result.error === 'NULLFAIL') error = 'CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)';
    errors.push({ index: i, error });
  });
  return { tx: signed, errors };
}

/** Core's sighashtype argument names. */
const SIGHASH_NAMES: Readonly<Record<string, number>> = {
  DEFAULT: SIGHASH_ALL,
  ALL: 0x01,
  NONE: 0x02,
  SINGLE: 0x03,
  'ALL|ANYONECANPAY': 0x81,
  'NONE|ANYONECANPAY': 0x82,
  'SINGLE|ANYONECANPAY': 0x83,
};

export function parseSighashType(name: string): number | null {
  return SIGHASH_NAMES[name] ?? null;
}

/** A KeySource over explicit private keys (signrawtransactionwithkey), with their P2SH-P2WPKH redeem scripts. */
export function keySourceFromKeys(
  keys: readonly { privateKey: Uint8Array; publicKey: Uint8Array }[],
  extraRedeemScripts: readonly Uint8Array[] = [],
): KeySource {
  const byHash = new Map<string, { privateKey: Uint8Array; publicKey: Uint8Array }>();
  const redeem = new Map<string, Uint8Array>();
  for (const k of keys) {
    byHash.set(hashToHex(hash160(k.publicKey)), k);
    if (k.publicKey.length === 33) {
      const script = p2wpkhScript(hash160(k.publicKey));
      redeem.set(hashToHex(hash160(script)), script);
    }
  }
  for (const script of extraRedeemScripts) redeem.set(hashToHex(hash160(script)), script);
  return {
    publicKeyForHash: (h) => byHash.get(hashToHex(h))?.publicKey,
    privateKeyFor: (pub) => new Uint8Array(byHash.get(hashToHex(hash160(pub)))!.privateKey),
    redeemScriptFor: (h) => redeem.get(hashToHex(h)),
  };
}
