// Issue #3 figure: block connect of a block with 2,000 P2WPKH inputs through the real chain
// (LMDB, UTXO lookups, undo, parallel script checks), per input, against raw single-thread
// libsecp256k1 verification of the same signatures, all in one run.
//   node --conditions=@cs/source --import tsx bench/chain-connect.ts
import { availableParallelism } from 'node:os';
import { PrecomputedTxData, Transaction, hash160, p2wpkhScript, publicKeyCreate, type TxOut } from '@cs/consensus';
import type { ConnectTiming } from '../packages/csd/src/chain/events.ts';
import { nextBlock, openHarness, spendOpTrue } from '../packages/csd/test/chain-harness.ts';
import { signP2wpkhInput } from '../packages/csd/test/test-key.ts';
import { native } from './lib/raw-verify.ts';
import { median } from './lib/stats.ts';

const INPUTS = 2000;
const TXS = 10;
const ROUNDS = 25;
/**
 * Connects before measuring: the first few run while V8 is still compiling the hot paths on each
 * thread (the workers only run during connects), two to three times slower than a node in steady
 * state.
 */
const WARMUP = 5;

interface Signed {
  readonly sig: Uint8Array;
  readonly msg: Uint8Array;
  readonly pub: Uint8Array;
}

interface Measured {
  speedup: number;
  usPerInput: number;
  rawUsPerInput: number;
  /** Median milliseconds per block of each connect phase. */
  phasesMs: { plan: number; scripts: number; write: number };
}

/**
 * Connect rounds back to back (as in a sync), between raw verifications of the same 2,000
 * signatures half of them before and half after, so that a shared machine getting slower or
 * faster during the run weighs on both sides of the ratio alike.
 */
async function measure(threads: number): Promise<Measured> {
  const h = await openHarness({ threads });
  try {
    const { chain } = h;
    for (let i = 0; i < 101; i++) await chain.processBlock(nextBlock(chain));
    const key = new Uint8Array(32).fill(7);
    const pub = publicKeyCreate(key, true);
    const spk = p2wpkhScript(hash160(pub));
    const cb = chain.readBlock(chain.atHeight(1)!)!.txs[0];
    const each = (cb.outputs[0].value - 1_000_000n) / BigInt(INPUTS);
    const fan = spendOpTrue(
      cb,
      0,
      Array.from({ length: INPUTS }, () => ({ value: each, scriptPubKey: spk })),
    );
    const fanFee = cb.outputs[0].value - each * BigInt(INPUTS);
    await chain.processBlock(nextBlock(chain, { txs: [fan], fees: fanFee }));

    // TXS transactions, each spending INPUTS / TXS of the P2WPKH outputs, signed for real.
    const triples: Signed[] = [];
    const spends: Transaction[] = [];
    const per = INPUTS / TXS;
    for (let t = 0; t < TXS; t++) {
      const inputs = Array.from({ length: per }, (_, i) => ({
        prevout: { txid: fan.txid, vout: t * per + i },
        scriptSig: new Uint8Array(0),
        sequence: 0xffffffff,
        witness: [] as Uint8Array[],
      }));
      const outputs: TxOut[] = [{ value: each * BigInt(per) - 10_000n, scriptPubKey: spk }];
      const unsigned = new Transaction({ version: 2, inputs, outputs, locktime: 0 });
      const txdata = new PrecomputedTxData(unsigned);
      const signedInputs = inputs.map((input, i) => {
        const { witness, sighash, signature } = signP2wpkhInput(unsigned, i, each, key, pub, txdata);
        triples.push({ sig: signature, msg: sighash, pub });
        return { ...input, witness };
      });
      spends.push(new Transaction({ ...unsigned, inputs: signedInputs }));
    }
    const block = nextBlock(chain, { txs: spends, fees: 10_000n * BigInt(TXS) });
    const r = await chain.processBlock(block);
    if (r.status !== 'accepted') throw new Error(`bench block not accepted: ${JSON.stringify(r)}`);

    // Disconnect and reconnect the same block: each reconnect is a full connect.
    // The chain times each connect itself (the `connect` event, csd_block_connect_duration_seconds):
    // reading the block, UTXO lookups, amounts, sigops, all 2,000 scripts, the atomic write of
    // coins and undo data. reconsiderblock around it also rewrites the block's index status.
    const timings: ConnectTiming[] = [];
    chain.events.on('connect', ({ timing }) => timings.push(timing));
    const connect: number[] = [];
    const measured: ConnectTiming[] = [];
    const raw: number[] = [];
    for (let round = 0; round < ROUNDS / 2; round++) raw.push(rawVerify(triples));
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      await chain.invalidateBlock(block.header.hashHex);
      const before = timings.length;
      await chain.reconsiderBlock(block.header.hashHex);
      const timing = timings[before];
      if (chain.tip.hashHex !== block.header.hashHex || timings.length !== before + 1 || timing.inputs !== INPUTS) {
        throw new Error('block did not reconnect');
      }
      if (round < WARMUP) continue;
      connect.push((timing.seconds * 1e6) / INPUTS);
      measured.push(timing);
    }
    while (raw.length < ROUNDS) raw.push(rawVerify(triples));
    const usPerInput = median(connect);
    const rawUsPerInput = median(raw);
    const phaseMs = (k: keyof ConnectTiming['phases']) => median(measured.map((t) => t.phases[k] * 1000));
    return {
      speedup: rawUsPerInput / usPerInput,
      usPerInput,
      rawUsPerInput,
      phasesMs: { plan: phaseMs('plan'), scripts: phaseMs('scripts'), write: phaseMs('write') },
    };
  } finally {
    await h.close();
  }
}

/** One pass of bare libsecp256k1 verification over the signatures, in µs per signature. */
function rawVerify(triples: readonly Signed[]): number {
  const t0 = process.hrtime.bigint();
  for (const t of triples) if (!native.ecdsaVerify(t.sig, t.msg, t.pub)) throw new Error('raw verify failed');
  return Number(process.hrtime.bigint() - t0) / 1e3 / triples.length;
}

export async function benchChainConnect(): Promise<{
  speedup: number;
  singleThreadRatio: number;
  usPerInput: number;
  rawUsPerInput: number;
  threads: number;
  phasesMs: Measured['phasesMs'];
}> {
  const threads = availableParallelism();
  const parallel = await measure(0);
  const single = await measure(1);
  return {
    speedup: parallel.speedup,
    singleThreadRatio: single.speedup,
    usPerInput: parallel.usPerInput,
    rawUsPerInput: parallel.rawUsPerInput,
    threads,
    phasesMs: parallel.phasesMs,
  };
}

/** The figures as printed by this script and by bench/node.ts. */
export function describeChainConnect(r: Awaited<ReturnType<typeof benchChainConnect>>): string[] {
  const p = r.phasesMs;
  return [
    `block connect, 2,000 P2WPKH inputs, ${r.threads} script threads: ${r.usPerInput.toFixed(1)} us/input; raw single-thread verify: ${r.rawUsPerInput.toFixed(1)} us/input`,
    `connect rate / raw single-core verify rate: ${r.speedup.toFixed(2)}x (goal >= 1.85x on 2 cores)`,
    `per block (median ms): plan ${p.plan.toFixed(1)}, waiting for scripts ${p.scripts.toFixed(1)}, write ${p.write.toFixed(1)}`,
    `same with one script thread: ${r.singleThreadRatio.toFixed(2)}x`,
  ];
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const line of describeChainConnect(await benchChainConnect())) console.log(line);
}
