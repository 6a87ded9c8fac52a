// A key held by a test, acting as an external wallet: daemon tests mine to its address and sign
// their own spends with it, so they need no node wallet.
import {
  REGTEST,
  SIGHASH_ALL,
  Transaction,
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
    const msg = witnessV0SignatureHash(p2pkhScript(hash160(this.pub)), tx, index, SIGHASH_ALL, amount);
    const der = signatureToDER(ecdsaSign(msg, this.secret).signature);
    const inputs = tx.inputs.map((input, i) =>
      i === index ? { ...input, witness: [concatBytes(der, Uint8Array.of(SIGHASH_ALL)), this.pub] } : input,
    );
    return new Transaction({ ...tx, inputs });
  }
}
