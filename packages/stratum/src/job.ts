/**
 * Stratum jobs from csd's getblocktemplate (docs/mining.md, "From a template to stratum jobs"):
 * the coinbase paying the pool (or the finder on solo), the merkle root, the mining.notify fields,
 * the 140-byte header a submit stands for, and the block that goes to submitblock.
 */
import {
  Transaction,
  Writer,
  bip34HeightPush,
  concatBytes,
  fromHex,
  hashFromHex,
  hashesFromHex,
  merkleBranch,
  rootFromBranch,
  toHex,
  type EquihashParams,
  type TxOut,
} from '@cs/consensus';
import { targetFromHex } from './target.ts';

/** The fields of csd's getblocktemplate answer a pool uses. */
export interface BlockTemplate {
  readonly version: number;
  readonly previousblockhash: string;
  readonly transactions: readonly { readonly data: string; readonly txid: string }[];
  readonly coinbasevalue: number;
  readonly target: string;
  readonly mintime: number;
  readonly curtime: number;
  readonly bits: string;
  readonly height: number;
  readonly default_witness_commitment?: string;
  readonly finalsaplingroothash?: string;
  readonly longpollid?: string;
}

/**
 * A template with what every job made from it shares: the merkle branch of its transactions,
 * computed once however many jobs (one per solo miner) are built from it. A job's root is then
 * one hash per level from its coinbase.
 */
export interface PreparedTemplate extends BlockTemplate {
  readonly branch: readonly Uint8Array[];
  /** The transactions' hex, for Job.transactionsHex. */
  readonly transactionsHex: readonly string[];
}

/**
 * Throws on a template whose txids are not hashes or whose transaction data is not whole bytes.
 * The data's digits are left to submitblock: checking megabytes of them would delay every first
 * job for what csd, which wrote them, has already checked.
 */
export function prepareTemplate(t: BlockTemplate): PreparedTemplate {
  const transactionsHex = t.transactions.map((tx, i) => {
    if (typeof tx.data !== 'string' || tx.data.length % 2 !== 0) throw new RangeError(`template transaction ${i} has no hex data`);
    return tx.data;
  });
  return { ...t, branch: merkleBranch(hashesFromHex(t.transactions.map((tx) => tx.txid))), transactionsHex };
}

/** The all-zero BIP141 witness reserved value, the coinbase input's witness (docs/mining.md). */
const WITNESS_RESERVED_VALUE = new Uint8Array(32);

/** Free bytes after the height push in our coinbase scriptSig (BIP34 allows 100 bytes in all). */
const MAX_COINBASE_TAG = 90;

export interface JobSpec {
  readonly id: string;
  readonly template: PreparedTemplate;
  /** The coinbase outputs besides the witness commitment, at most coinbasevalue in total. */
  readonly payouts: readonly TxOut[];
  /** Bytes after the BIP34 height: the pool's tag and per-instance randomness, so two pools never build the same coinbase. */
  readonly coinbaseTag: Uint8Array;
  readonly equihash: EquihashParams;
}

export interface Job {
  readonly id: string;
  readonly height: number;
  readonly version: number;
  /** Internal byte order. */
  readonly prevHash: Uint8Array;
  readonly merkleRoot: Uint8Array;
  readonly reserved: Uint8Array;
  readonly time: number;
  readonly mintime: number;
  readonly bits: number;
  /** The block target: a share at or below it is a block. */
  readonly target: bigint;
  readonly coinbase: Transaction;
  /**
   * The template's other transactions, hex as getblocktemplate gave them: only a found block
   * needs them, and submitblock takes hex, so they are never decoded.
   */
  readonly transactionsHex: readonly string[];
  readonly coinbaseValue: bigint;
  readonly equihash: EquihashParams;
  /** The first 108 header bytes (version .. bits), the Equihash input before the nonce. */
  readonly headerInput: Uint8Array;
}

export function buildCoinbase(height: number, tag: Uint8Array, outputs: readonly TxOut[]): Transaction {
  if (tag.length > MAX_COINBASE_TAG) throw new RangeError(`the coinbase tag is at most ${MAX_COINBASE_TAG} bytes`);
  // A push keeps the scriptSig parseable whatever the tag bytes are.
  const scriptSig = new Writer(8 + tag.length).bytes(bip34HeightPush(height)).u8(tag.length).bytes(tag).finish();
  return new Transaction({
    version: 1,
    inputs: [{ prevout: { txid: new Uint8Array(32), vout: 0xffffffff }, scriptSig, sequence: 0xffffffff, witness: [WITNESS_RESERVED_VALUE] }],
    outputs: [...outputs],
    locktime: 0,
  });
}

export function buildJob(spec: JobSpec): Job {
  const t = spec.template;
  const coinbaseValue = BigInt(t.coinbasevalue);
  const paid = spec.payouts.reduce((sum, o) => sum + o.value, 0n);
  if (paid > coinbaseValue) throw new RangeError(`coinbase outputs pay ${paid}, more than coinbasevalue ${coinbaseValue}`);
  const outputs: TxOut[] = [...spec.payouts];
  if (t.default_witness_commitment) outputs.push({ value: 0n, scriptPubKey: fromHex(t.default_witness_commitment) });
  const coinbase = buildCoinbase(t.height, spec.coinbaseTag, outputs);
  const root = rootFromBranch(coinbase.txid, t.branch);
  const prevHash = hashFromHex(t.previousblockhash);
  const reserved = t.finalsaplingroothash ? hashFromHex(t.finalsaplingroothash) : new Uint8Array(32);
  const bits = Number.parseInt(t.bits, 16) >>> 0;
  const headerInput = new Writer(108).i32le(t.version).bytes(prevHash).bytes(root).bytes(reserved).u32le(t.curtime).u32le(bits).finish();
  return {
    id: spec.id,
    height: t.height,
    version: t.version,
    prevHash,
    merkleRoot: root,
    reserved,
    time: t.curtime,
    mintime: t.mintime,
    bits,
    target: targetFromHex(t.target),
    coinbase,
    transactionsHex: t.transactionsHex,
    coinbaseValue,
    equihash: spec.equihash,
    headerInput,
  };
}

/** ZIP 301's notify fields as they stand in the header, plus the two `--pers auto` fields. */
export function notifyParams(job: Job, cleanJobs: boolean): unknown[] {
  const h = job.headerInput;
  return [
    job.id,
    toHex(h.subarray(0, 4)),
    toHex(h.subarray(4, 36)),
    toHex(h.subarray(36, 68)),
    toHex(h.subarray(68, 100)),
    toHex(h.subarray(100, 104)),
    toHex(h.subarray(104, 108)),
    cleanJobs,
    ...algorithmFields(job.equihash),
  ];
}

/** notify's ALGO_TYPE and PERSONALIZATION: "125_4","ZelProof" on main/test, "48_5","ZcashPoW" on regtest. */
export function algorithmFields(params: EquihashParams): [string, string] {
  return [`${params.n}_${params.k}`, params.personalization];
}

/** The 140 header bytes of a submit: the job's 108 with the submitted time, then NONCE_1 ‖ NONCE_2. */
export function headerPrefix(headerInput: Uint8Array, time: number, nonce1: Uint8Array, nonce2: Uint8Array): Uint8Array {
  if (nonce1.length + nonce2.length !== 32) throw new RangeError('NONCE_1 and NONCE_2 make 32 bytes');
  const header = new Uint8Array(140);
  header.set(headerInput, 0);
  new DataView(header.buffer).setUint32(100, time >>> 0, true);
  header.set(nonce1, 108);
  header.set(nonce2, 108 + nonce1.length);
  return header;
}

/** submitblock's hex: header ‖ compactSize(solution) ‖ solution ‖ compactSize(tx count) ‖ coinbase ‖ transactions. */
export function blockHex(job: Job, header140: Uint8Array, solution: Uint8Array): string {
  const w = new Writer(header140.length + solution.length + 1024);
  w.bytes(header140)
    .varBytes(solution)
    .compactSize(1 + job.transactionsHex.length)
    .bytes(job.coinbase.encode(true));
  return toHex(w.finish()) + job.transactionsHex.join('');
}

/** What a miner needs from a mining.notify: the job id, the 108-byte Equihash input and clean_jobs. */
export interface NotifiedJob {
  readonly jobId: string;
  readonly headerInput: Uint8Array;
  readonly time: number;
  readonly cleanJobs: boolean;
}

export function parseNotify(params: readonly unknown[]): NotifiedJob {
  const [jobId, version, prev, merkle, reserved, time, bits, clean] = params;
  const fields = [version, prev, merkle, reserved, time, bits];
  if (typeof jobId !== 'string' || !fields.every((f) => typeof f === 'string')) throw new RangeError('notify fields are hex strings');
  const headerInput = concatBytes(...(fields as string[]).map((f) => fromHex(f)));
  if (headerInput.length !== 108) throw new RangeError('notify fields make 108 header bytes');
  const t = new DataView(headerInput.buffer, headerInput.byteOffset).getUint32(100, true);
  return { jobId, headerInput, time: t, cleanJobs: clean === true };
}
