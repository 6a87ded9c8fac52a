// A real chain with mature coinbases paying a test key, and helpers to build standard, signed
// transactions on it, for mempool, block template and fee estimation tests.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CURVE_ORDER,
  SIGHASH_ALL,
  Transaction,
  bytesEqual,
  concatBytes,
  ecdsaSign,
  hash160,
  p2pkhScript,
  p2wpkhScript,
  p2wshScript,
  publicKeyCreate,
  sha256,
  signatureToDER,
  witnessV0SignatureHash,
  type OutPoint,
  type TxOut,
} from '@cs/consensus';
import assert from 'node:assert/strict';
import type { Chain } from '../src/chain/chainstate.ts';
import { Mempool, type MempoolOptions } from '../src/mempool/mempool.ts';
import type { AcceptResult } from '../src/mempool/results.ts';
import { OP_TRUE, nextBlock, openHarness, type Harness } from './chain-harness.ts';

const PRIVATE_KEY = new Uint8Array(32).fill(7);
const PUBLIC_KEY = publicKeyCreate(PRIVATE_KEY, true);
/** P2WPKH of the test key: every coinbase of the fixture pays here. */
export const KEY_SCRIPT = p2wpkhScript(hash160(PUBLIC_KEY));
/** P2WSH of OP_TRUE: a standard output anyone can spend with the witness [OP_TRUE]. */
export const ANYONE_SCRIPT = p2wshScript(sha256(OP_TRUE));

/** An unspent output and where it is. */
export interface Utxo {
  readonly outpoint: OutPoint;
  readonly output: TxOut;
}

export function utxo(tx: Transaction, vout: number): Utxo {
  return { outpoint: { txid: tx.txid, vout }, output: tx.outputs[vout] };
}

export interface TxSpec {
  readonly inputs: readonly Utxo[];
  readonly outputs: readonly TxOut[];
  readonly version?: number;
  readonly locktime?: number;
  /** One sequence for every input, or one per input. Default 0xfffffffd (signals BIP125). */
  readonly sequence?: number | readonly number[];
  /** Produces a high-S signature for the key inputs (valid, but non-standard). */
  readonly highS?: boolean;
}

/** A transaction spending `inputs` (key outputs signed, ANYONE outputs with [OP_TRUE]). */
export function buildTx(spec: TxSpec): Transaction {
  const seq = (i: number) => (typeof spec.sequence === 'number' ? spec.sequence : (spec.sequence?.[i] ?? 0xfffffffd));
  const unsigned = new Transaction({
    version: spec.version ?? 2,
    inputs: spec.inputs.map((u, i) => ({ prevout: u.outpoint, scriptSig: new Uint8Array(0), sequence: seq(i), witness: [] })),
    outputs: spec.outputs,
    locktime: spec.locktime ?? 0,
  });
  const inputs = unsigned.inputs.map((input, i) => {
    const spent = spec.inputs[i].output;
    if (bytesEqual(spent.scriptPubKey, ANYONE_SCRIPT)) return { ...input, witness: [OP_TRUE] };
    if (bytesEqual(spent.scriptPubKey, KEY_SCRIPT)) {
      const scriptCode = p2pkhScript(hash160(PUBLIC_KEY));
      const sighash = witnessV0SignatureHash(scriptCode, unsigned, i, SIGHASH_ALL, spent.value);
      let sig = ecdsaSign(sighash, PRIVATE_KEY).signature;
      if (spec.highS) sig = toHighS(sig);
      return { ...input, witness: [concatBytes(signatureToDER(sig), Uint8Array.of(SIGHASH_ALL)), PUBLIC_KEY] };
    }
    return input;
  });
  return new Transaction({ ...unsigned, inputs });
}

function toHighS(sig64: Uint8Array): Uint8Array {
  const s = BigInt(`0x${Buffer.from(sig64.subarray(32)).toString('hex')}`);
  const high = Buffer.from((CURVE_ORDER - s).toString(16).padStart(64, '0'), 'hex');
  return concatBytes(sig64.subarray(0, 32), high);
}

/** A spend of `from` into outputs of `values` to `script`, the rest of its value going to fees. */
export function spend(from: Utxo | readonly Utxo[], values: readonly bigint[], extra: Partial<TxSpec> = {}, script = ANYONE_SCRIPT): Transaction {
  const inputs = Array.isArray(from) ? (from as readonly Utxo[]) : [from as Utxo];
  return buildTx({ inputs, outputs: values.map((value) => ({ value, scriptPubKey: script })), ...extra });
}

/** Total value of the inputs minus the outputs. */
export function feeOf(tx: Transaction, inputs: readonly Utxo[]): bigint {
  return inputs.reduce((s, u) => s + u.output.value, 0n) - tx.outputs.reduce((s, o) => s + o.value, 0n);
}

/** Mines a block with `txs` on the tip, the coinbase paying the test key (claiming no fees). */
export async function mine(chain: Chain, txs: Transaction[] = []): Promise<void> {
  const r = await chain.processBlock(nextBlock(chain, { txs, payTo: KEY_SCRIPT }));
  if (r.status !== 'accepted') throw new Error(`block not accepted: ${r.status === 'rejected' ? `${r.reason} ${r.debug}` : r.status}`);
}

/** The coinbase output of the block at `height` (pays KEY_SCRIPT). */
function coinbaseUtxo(chain: Chain, height: number): Utxo {
  const block = chain.readBlock(chain.atHeight(height)!)!;
  return utxo(block.txs[0], 0);
}

const FIXTURE_HEIGHT = 110;
let template: Promise<string> | undefined;

/**
 * A harness on a copy of a chain of FIXTURE_HEIGHT blocks (mined once per test process): the
 * coinbases of heights 1..11 can be spent in the next block.
 */
async function openFixture(): Promise<Harness> {
  template ??= (async () => {
    const h = await openHarness();
    for (let i = 0; i < FIXTURE_HEIGHT; i++) await mine(h.chain);
    await h.chain.close();
    await h.db.close();
    process.on('exit', () => rmSync(h.dir, { recursive: true, force: true }));
    return h.dir;
  })();
  const source = await template;
  const dir = mkdtempSync(join(tmpdir(), 'cs-mempool-'));
  cpSync(source, dir, { recursive: true });
  return openHarness({ dir });
}

/** Value of every fixture coinbase output (12.5 coins). */
export const COIN_VALUE = 1_250_000_000n;

export interface MempoolContext {
  readonly h: Harness;
  readonly chain: Chain;
  readonly mempool: Mempool;
  coin(height: number): Utxo;
  /** The mempool's clock (Unix seconds); starts ten minutes after the fixture's tip. */
  now: number;
}

/** Runs `fn` with a fresh fixture chain and a mempool on it, then closes both. */
export async function withMempool(fn: (c: MempoolContext) => Promise<void> | void, opts: Partial<MempoolOptions> = {}): Promise<void> {
  const h = await openFixture();
  const clock = { now: h.chain.tip.time + 600 };
  let mempool: Mempool;
  try {
    mempool = new Mempool({ chain: h.chain, now: () => clock.now, ...opts });
  } catch (e) {
    await h.close();
    throw e;
  }
  const ctx: MempoolContext = {
    h,
    chain: h.chain,
    mempool,
    coin: (height) => coinbaseUtxo(h.chain, height),
    get now() {
      return clock.now;
    },
    set now(t: number) {
      clock.now = t;
    },
  };
  try {
    await fn(ctx);
  } finally {
    mempool.close();
    await h.close();
  }
}

/** The reject reason of a failed acceptance ('' when it was accepted). */
export function reason(r: AcceptResult): string {
  return r.kind === 'accepted' || r.kind === 'valid' ? '' : r.reason;
}

export function accepted(r: AcceptResult): void {
  assert.equal(r.kind, 'accepted', reason(r) + (r.kind === 'rejected' ? ` ${r.debug}` : ''));
}
