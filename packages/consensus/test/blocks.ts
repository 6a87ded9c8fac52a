// Builders for consensus tests: regtest blocks assembled and mined in-process.
import { sha256d } from '../src/crypto/hash.ts';
import { Writer } from '../src/encoding/writer.ts';
import type { ChainParams } from '../src/params/networks.ts';
import { mineHeader } from '../src/pow/mining.ts';
import { compactToTarget, hashMeetsTarget } from '../src/pow/target.ts';
import { Block, witnessCommitment, witnessCommitmentScript, witnessMerkleRoot } from '../src/primitives/block.ts';
import { BlockHeader } from '../src/primitives/header.ts';
import { merkleRoot } from '../src/primitives/merkle.ts';
import { Transaction, type TxOut } from '../src/primitives/tx.ts';
import { bip34HeightPush } from '../src/validation/block-checks.ts';

/** A coinbase paying `value` to OP_TRUE with the BIP34 height push (plus a pad byte for bad-cb-length). */
export function coinbaseTx(height: number, value: bigint, extraOutputs: TxOut[] = [], witnessNonce?: Uint8Array): Transaction {
  return new Transaction({
    version: 1,
    inputs: [
      {
        prevout: { txid: new Uint8Array(32), vout: 0xffffffff },
        scriptSig: Uint8Array.of(...bip34HeightPush(height), 0x00),
        sequence: 0xffffffff,
        witness: witnessNonce ? [witnessNonce] : [],
      },
    ],
    outputs: [{ value, scriptPubKey: Uint8Array.of(0x51) }, ...extraOutputs],
    locktime: 0,
  });
}

/** Adds the BIP141 commitment for `txs` to their coinbase (reserved value all zero). */
export function withWitnessCommitment(txs: Transaction[]): Transaction[] {
  const nonce = new Uint8Array(32);
  const cb = txs[0];
  const draft = [new Transaction({ ...cb, inputs: [{ ...cb.inputs[0], witness: [nonce] }] }), ...txs.slice(1)];
  const commitment = witnessCommitment(witnessMerkleRoot(draft).root, nonce);
  const coinbase = new Transaction({ ...draft[0], outputs: [...cb.outputs, { value: 0n, scriptPubKey: witnessCommitmentScript(commitment) }] });
  return [coinbase, ...txs.slice(1)];
}

export interface BlockSpec {
  readonly prevHash?: Uint8Array;
  readonly time?: number;
  readonly bits?: number;
  readonly version?: number;
  readonly reserved?: Uint8Array;
  /** Use this root instead of the computed one. */
  readonly merkleRoot?: Uint8Array;
}

export function assembleBlock(txs: readonly Transaction[], spec: BlockSpec = {}): Block {
  const header = new BlockHeader({
    version: spec.version ?? 4,
    prevHash: spec.prevHash ?? new Uint8Array(32),
    merkleRoot: spec.merkleRoot ?? merkleRoot(txs.map((t) => t.txid)).root,
    reserved: spec.reserved ?? new Uint8Array(32),
    time: spec.time ?? 1795132900,
    bits: spec.bits ?? 0x200f0f0f,
    nonce: new Uint8Array(32),
    solution: new Uint8Array(0),
  });
  return new Block(header, txs);
}

/** Solves the block's header; `meetTarget: false` keeps the first valid solution even if its hash misses the target. */
export function mine(block: Block, params: ChainParams, meetTarget = true): Block {
  const target = compactToTarget(block.header.bits).target;
  const found = mineHeader(params.equihash, block.header.prefix(), {
    maxNonces: 100_000,
    accept: (h140, sol) => !meetTarget || hashMeetsTarget(sha256d(new Writer().bytes(h140).varBytes(sol).finish()), target),
  });
  if (!found) throw new Error('no solution found');
  const h = block.header;
  const header = new BlockHeader({ ...h, version: h.version, nonce: found.header140.slice(108), solution: found.solution });
  return new Block(header, block.txs);
}
