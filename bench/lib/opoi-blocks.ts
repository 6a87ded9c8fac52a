// What the OPoI block benches share: parties with keys, coins funded from mature coinbases, signed
// OPoI transactions, their plain twins, and the timing of two sibling blocks on one chain.
import { availableParallelism } from 'node:os';
import {
  type Actor,
  ActorType,
  OpoiKind,
  type OpoiPayload,
  REGTEST,
  Transaction,
  type TxOut,
  collateralScript,
  escrowScript,
  fromHex,
  hash160,
  nullDataScript,
  opoiPayloadBytes,
  opoiPayloadScript,
  p2shScript,
  p2wpkhScript,
  toHex,
} from '@cs/consensus';
import type { Block } from '@cs/consensus';
import type { Chain } from '../../packages/csd/src/chain/chainstate.ts';
import type { ConnectTiming } from '../../packages/csd/src/chain/events.ts';
import { nextBlock, spendOpTrue } from '../../packages/csd/test/chain-harness.ts';
import { TestKey } from '../../packages/csd/test/test-key.ts';
import { median, percentile } from './stats.ts';

export const FEE = 2_000n;
/** Connects before measuring, as in bench/chain-connect.ts: the first ones run while V8 still compiles the hot paths. */
const WARMUP = 5;

export interface Coin {
  readonly key: TestKey;
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly value: bigint;
}

export interface Party {
  readonly key: TestKey;
  readonly actor: Actor;
  readonly script: Uint8Array;
}

export function party(i: number): Party {
  const secret = new Uint8Array(32);
  secret[29] = 0x0b;
  secret[30] = i >> 8;
  secret[31] = (i & 0xff) + 1;
  const key = new TestKey(secret);
  const hash = hash160(key.pub);
  return { key, actor: { type: ActorType.P2WPKH, hash }, script: p2wpkhScript(hash) };
}

/** A signed spend of `coin` (a P2WPKH coin of its key) into `outputs` plus the change back to it. */
export function spend(coin: Coin, outputs: readonly TxOut[]): Transaction {
  const paid = outputs.reduce((s, o) => s + o.value, 0n);
  const change = { value: coin.value - paid - FEE, scriptPubKey: p2wpkhScript(hash160(coin.key.pub)) };
  const unsigned = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: coin.txid, vout: coin.vout }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
    outputs: [...outputs, change],
    locktime: 0,
  });
  return Transaction.decode(fromHex(coin.key.signP2wpkh(toHex(unsigned.encode()), [coin.value])));
}

/**
 * An OPoI transaction: the actor's coin, the held coin first where the kind has one (a REQUEST's
 * escrow, a STAKE's collateral, a CHALLENGE's bond, of value `held`), then the payload (carrying
 * `burn`, a MANIFEST's fee).
 */
export function opoiTx(coin: Coin, payload: OpoiPayload, held = 0n, burn = 0n): Transaction {
  const outputs: TxOut[] = [];
  if (payload.kind === OpoiKind.REQUEST || payload.kind === OpoiKind.CHALLENGE)
    outputs.push({ value: held, scriptPubKey: escrowScript(payload.requestId) });
  if (payload.kind === OpoiKind.STAKE) outputs.push({ value: held || REGTEST.opoi.minStake, scriptPubKey: collateralScript(payload.miner) });
  outputs.push({ value: burn, scriptPubKey: opoiPayloadScript(payload) });
  return spend(coin, outputs);
}

/**
 * The plain twin of an OPoI transaction: the same input type, outputs of the same count, values
 * and sizes, but nothing OPoI in them (a held coin becomes a P2SH output; the payload an OP_RETURN
 * of the same length whose magic is not "OPOI").
 */
export function plainTwin(coin: Coin, opoi: Transaction): Transaction {
  const outputs = opoi.outputs.slice(0, -1).map((o) => {
    const payload = opoiPayloadBytes(o.scriptPubKey);
    if (payload) {
      const data = payload.slice();
      data[3] = 0x58; // "OPOX"
      return { value: o.value, scriptPubKey: nullDataScript(data) };
    }
    return { value: o.value, scriptPubKey: p2shScript(o.scriptPubKey.subarray(1, 21)) };
  });
  return spend(coin, outputs);
}

/** Mines one block of `txs` on the tip; throws unless it is accepted. */
export async function mine(chain: Chain, txs: Transaction[]): Promise<void> {
  const r = await chain.processBlock(nextBlock(chain, { txs, fees: FEE * BigInt(txs.length) }));
  if (r.status !== 'accepted') throw new Error(`setup block not accepted: ${JSON.stringify(r)}`);
}

/** Coins of the given values for the given parties, from the coinbases of heights 1.., in one funding block. */
export async function fund(chain: Chain, wants: readonly { who: Party; value: bigint }[]): Promise<Coin[]> {
  const coins: Coin[] = [];
  const fans: Transaction[] = [];
  for (let height = 1, next = 0; next < wants.length; height++) {
    const cb = chain.readBlock(chain.atHeight(height)!)!.txs[0];
    const outputs: TxOut[] = [];
    let left = cb.outputs[0].value - FEE;
    while (next < wants.length && left >= wants[next].value && outputs.length < 1500) {
      outputs.push({ value: wants[next].value, scriptPubKey: wants[next].who.script });
      left -= wants[next++].value;
    }
    outputs.push({ value: left, scriptPubKey: Uint8Array.of(0x51) });
    const fan = spendOpTrue(cb, 0, outputs);
    const first = next - (outputs.length - 1);
    outputs.slice(0, -1).forEach((o, vout) => coins.push({ key: wants[first + vout].who.key, txid: fan.txid, vout, value: o.value }));
    fans.push(fan);
  }
  await mine(chain, fans);
  return coins;
}

export interface BlockCompare {
  readonly opoiMs: number;
  readonly plainMs: number;
  /** Median over rounds of (OPoI connect ÷ plain connect), each pair from one round. */
  readonly ratio: number;
  /** The 25th and 75th percentiles of those per-round ratios: how far one run's rounds spread. */
  readonly ratioQuartiles: readonly [number, number];
  readonly opoiPhases: ConnectTiming['phases'];
  readonly plainPhases: ConnectTiming['phases'];
  readonly threads: number;
  readonly opoiBytes: number;
  readonly plainBytes: number;
  /** The OPoI block's lifecycle events by type, from its first connect. */
  readonly events: ReadonlyMap<string, number>;
}

const ROUNDS = 25;

/**
 * Two sibling blocks on one tip: B with the OPoI transactions, P with their plain twins. B comes
 * first, so it is the tip; invalidateblock B makes P the tip (P connects), reconsiderblock B
 * brings B back (equal work, B seen first: P is disconnected and B connects). Each round thus
 * times one connect of each, both after a disconnect of the other, as the chain times it.
 */
export async function compareSiblings(chain: Chain, opoiTxs: Transaction[], plainTxs: Transaction[]): Promise<BlockCompare> {
  const fees = FEE * BigInt(opoiTxs.length);
  const opoiBlock: Block = nextBlock(chain, { txs: opoiTxs, fees });
  const plainBlock: Block = nextBlock(chain, { txs: plainTxs, fees });
  const timings = new Map<string, ConnectTiming[]>([
    [opoiBlock.header.hashHex, []],
    [plainBlock.header.hashHex, []],
  ]);
  const events = new Map<string, number>();
  let counted = false;
  chain.events.on('connect', ({ entry, timing, opoi }) => {
    timings.get(entry.hashHex)?.push(timing);
    if (entry.hashHex !== opoiBlock.header.hashHex || counted) return;
    counted = true;
    for (const e of opoi) events.set(e.type, (events.get(e.type) ?? 0) + 1);
  });
  const first = await chain.processBlock(opoiBlock);
  if (first.status !== 'accepted') throw new Error(`OPoI block not accepted: ${JSON.stringify(first)}`);
  const second = await chain.processBlock(plainBlock);
  if (second.status !== 'inconclusive' || chain.tip.hashHex !== opoiBlock.header.hashHex) throw new Error('plain block took the tip');

  const opoiRuns = timings.get(opoiBlock.header.hashHex)!;
  const plainRuns = timings.get(plainBlock.header.hashHex)!;
  const pairs: { opoi: ConnectTiming; plain: ConnectTiming }[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const [o, p] = [opoiRuns.length, plainRuns.length];
    await chain.invalidateBlock(opoiBlock.header.hashHex);
    if (chain.tip.hashHex !== plainBlock.header.hashHex) throw new Error('plain block did not connect');
    await chain.reconsiderBlock(opoiBlock.header.hashHex);
    if (chain.tip.hashHex !== opoiBlock.header.hashHex) throw new Error('OPoI block did not reconnect');
    if (opoiRuns.length !== o + 1 || plainRuns.length !== p + 1) throw new Error('expected one connect of each block per round');
    if (round >= WARMUP) pairs.push({ opoi: opoiRuns[o], plain: plainRuns[p] });
  }
  const phases = (side: 'opoi' | 'plain') => ({
    plan: median(pairs.map((x) => x[side].phases.plan * 1000)),
    scripts: median(pairs.map((x) => x[side].phases.scripts * 1000)),
    write: median(pairs.map((x) => x[side].phases.write * 1000)),
  });
  const ratios = pairs.map((x) => x.opoi.seconds / x.plain.seconds);
  return {
    opoiMs: median(pairs.map((x) => x.opoi.seconds * 1000)),
    plainMs: median(pairs.map((x) => x.plain.seconds * 1000)),
    ratio: median(ratios),
    ratioQuartiles: [percentile(ratios, 25), percentile(ratios, 75)],
    opoiPhases: phases('opoi'),
    plainPhases: phases('plain'),
    threads: availableParallelism(),
    opoiBytes: opoiBlock.encode().length,
    plainBytes: plainBlock.encode().length,
    events,
  };
}

const ms = (x: number) => x.toFixed(1);

/** The lines a block comparison prints. */
export function printCompare(what: string, c: BlockCompare): void {
  const split = (p: ConnectTiming['phases']) => `plan ${ms(p.plan)}, scripts ${ms(p.scripts)}, write ${ms(p.write)}`;
  console.log(
    `block connect, ${what} vs 1,000 plain P2WPKH spends, ${c.threads} script threads (median ms): OPoI ${ms(c.opoiMs)}, plain ${ms(c.plainMs)}`,
  );
  console.log(
    `OPoI block / plain block connect: ${c.ratio.toFixed(2)} (goal <= 1.25, ${c.ratio <= 1.25 ? 'ok' : 'ABOVE GOAL'}; middle half of the rounds ${c.ratioQuartiles.map((q) => q.toFixed(2)).join('-')})`,
  );
  console.log(`    split (median ms): OPoI ${split(c.opoiPhases)}; plain ${split(c.plainPhases)}`);
  console.log(`    block sizes: OPoI ${c.opoiBytes} bytes, plain ${c.plainBytes} bytes`);
}
