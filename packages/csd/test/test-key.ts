// A key held by a test, acting as an external wallet: daemon tests mine to its address and sign
// their own spends with it, so they need no node wallet.
import {
  type PrecomputedTxData,
  REGTEST,
  SIGHASH_ALL,
  Transaction,
  type TxData,
  concatBytes,
  ecdsaSign,
  encodeDestination,
  fromHex,
  hash160,
  p2pkhScript,
  publicKeyCreate,
  signatureToDER,
  toHex,
  witnessV0SignatureHash,
} from '@cs/consensus';

/** A regtest P2WPKH address for an arbitrary 20-byte program (no key: coins sent there are gone). */
export function addressOf(program: Uint8Array): string {
  return encodeDestination({ type: 'witness', version: 0, program }, REGTEST.address);
}

/** What signing one P2WPKH input gives: its witness, and the BIP143 hash and compact signature in it (benches verify those bare). */
export interface P2wpkhSignature {
  readonly witness: Uint8Array[];
  readonly sighash: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * Signs input `index` of `tx`, which spends `amount` paid to the P2WPKH address of `pub`, with
 * SIGHASH_ALL; `txdata` (the transaction's precomputed BIP143 hashes) saves work over many inputs.
 */
export function signP2wpkhInput(
  tx: TxData,
  index: number,
  amount: bigint,
  priv: Uint8Array,
  pub: Uint8Array,
  txdata?: PrecomputedTxData,
): P2wpkhSignature {
  const sighash = witnessV0SignatureHash(p2pkhScript(hash160(pub)), tx, index, SIGHASH_ALL, amount, txdata);
  const { signature } = ecdsaSign(sighash, priv);
  return { witness: [concatBytes(signatureToDER(signature), Uint8Array.of(SIGHASH_ALL)), pub], sighash, signature };
}

export class TestKey {
  readonly pub: Uint8Array;
  readonly address: string;

  constructor(private readonly secret: Uint8Array) {
    this.pub = publicKeyCreate(secret, true);
    this.address = addressOf(hash160(this.pub));
  }

  /** Signs every input (each spending a P2WPKH output of this key worth amounts[i]) of a raw transaction. */
  signP2wpkh(hex: string, amounts: readonly bigint[]): string {
    const tx = Transaction.decode(fromHex(hex));
    return toHex(amounts.reduce((signed, amount, i) => this.signInput(signed, i, amount), tx).encode());
  }

  /** Signs input `index` of `tx` (spending a P2WPKH output of this key worth `amount`); other inputs stay as they are. */
  signInput(tx: Transaction, index: number, amount: bigint): Transaction {
    const { witness } = signP2wpkhInput(tx, index, amount, this.secret, this.pub);
    const inputs = tx.inputs.map((input, i) => (i === index ? { ...input, witness } : input));
    return new Transaction({ ...tx, inputs });
  }
}
