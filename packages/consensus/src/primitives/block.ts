import { Reader } from '../encoding/reader.ts';
import { Writer, compactSizeLength } from '../encoding/writer.ts';
import { bytesEqual, concatBytes } from '../encoding/hex.ts';
import { sha256d } from '../crypto/hash.ts';
import { BlockHeader } from './header.ts';
import { merkleRoot, type MerkleResult } from './merkle.ts';
import { Transaction, WITNESS_SCALE_FACTOR } from './tx.ts';

/** BIP141: the coinbase output script prefix OP_RETURN PUSH36 0xaa21a9ed that carries the commitment. */
export const WITNESS_COMMITMENT_HEADER = Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);

export class Block {
  constructor(
    readonly header: BlockHeader,
    readonly txs: readonly Transaction[],
  ) {}

  static decode(bytes: Uint8Array): Block {
    const r = new Reader(bytes);
    const b = Block.read(r);
    r.end('block');
    return b;
  }

  static read(r: Reader): Block {
    const header = BlockHeader.read(r);
    const count = r.compactSize();
    const txs: Transaction[] = [];
    for (let i = 0; i < count; i++) txs.push(Transaction.read(r));
    return new Block(header, txs);
  }

  write(w: Writer, witness = true): Writer {
    this.header.write(w);
    w.compactSize(this.txs.length);
    for (const tx of this.txs) tx.write(w, witness);
    return w;
  }

  encode(witness = true): Uint8Array {
    return this.write(new Writer(1024), witness).finish();
  }

  get hash(): Uint8Array {
    return this.header.hash;
  }

  /** Serialized size, witness included: summed from the transactions' own (cached) serializations. */
  get size(): number {
    return this.serializedSize((tx) => tx.size);
  }

  get strippedSize(): number {
    return this.serializedSize((tx) => tx.baseSize);
  }

  private serializedSize(txSize: (tx: Transaction) => number): number {
    let n = this.header.encode().length + compactSizeLength(this.txs.length);
    for (const tx of this.txs) n += txSize(tx);
    return n;
  }

  get weight(): number {
    return this.strippedSize * (WITNESS_SCALE_FACTOR - 1) + this.size;
  }

  computeMerkleRoot(): MerkleResult {
    return merkleRoot(this.txs.map((tx) => tx.txid));
  }
}

/** BIP141 witness merkle root: the coinbase's wtxid counts as zero. */
export function witnessMerkleRoot(txs: readonly Transaction[]): MerkleResult {
  return merkleRoot(txs.map((tx, i) => (i === 0 ? new Uint8Array(32) : tx.wtxid)));
}

/** SHA256d(witness root || witness reserved value): the 32 bytes after the commitment header. */
export function witnessCommitment(witnessRoot: Uint8Array, reservedValue: Uint8Array): Uint8Array {
  return sha256d(concatBytes(witnessRoot, reservedValue));
}

export function witnessCommitmentScript(commitment: Uint8Array): Uint8Array {
  return concatBytes(WITNESS_COMMITMENT_HEADER, commitment);
}

/** Index of the coinbase output holding the witness commitment: the last matching one, or -1 (BIP141). */
export function findWitnessCommitment(coinbase: Transaction): number {
  let found = -1;
  coinbase.outputs.forEach((out, i) => {
    const s = out.scriptPubKey;
    if (s.length >= 38 && bytesEqual(s.subarray(0, 6), WITNESS_COMMITMENT_HEADER)) found = i;
  });
  return found;
}
