import { fromHex } from '../encoding/hex.ts';
import { Block } from '../primitives/block.ts';
import { BlockHeader } from '../primitives/header.ts';
import { merkleRoot } from '../primitives/merkle.ts';
import { Transaction } from '../primitives/tx.ts';

/** Headline embedded in every genesis coinbase, as Bitcoin's "The Times 03/Jan/2009 ...". */
export const GENESIS_MESSAGE = 'cs genesis 2026-11-20: inference requests pay the miners who answer them';

export interface GenesisFields {
  readonly time: number;
  readonly bits: number;
  /** 32-byte Equihash nonce, hex in serialization order. */
  readonly nonce: string;
  /** Packed Equihash solution, hex. */
  readonly solution: string;
}

/**
 * The genesis coinbase: scriptSig = push(bits, little-endian) push(0x04) push(message) like
 * Bitcoin's, one zero-value OP_RETURN output (the genesis block's outputs are never spendable).
 */
export function genesisCoinbase(bits: number): Transaction {
  const message = new TextEncoder().encode(GENESIS_MESSAGE);
  const bitsLE = new Uint8Array(4);
  new DataView(bitsLE.buffer).setUint32(0, bits, true);
  // The message is under 76 bytes, so a direct push (no OP_PUSHDATA1) keeps the script minimal.
  const scriptSig = Uint8Array.of(4, ...bitsLE, 1, 4, message.length, ...message);
  return new Transaction({
    version: 1,
    inputs: [{ prevout: { txid: new Uint8Array(32), vout: 0xffffffff }, scriptSig, sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: 0n, scriptPubKey: Uint8Array.of(0x6a) }],
    locktime: 0,
  });
}

export function createGenesisBlock(f: GenesisFields): Block {
  const coinbase = genesisCoinbase(f.bits);
  const header = new BlockHeader({
    version: 4,
    prevHash: new Uint8Array(32),
    merkleRoot: merkleRoot([coinbase.txid]).root,
    reserved: new Uint8Array(32),
    time: f.time,
    bits: f.bits,
    nonce: fromHex(f.nonce),
    solution: fromHex(f.solution),
  });
  return new Block(header, [coinbase]);
}
