// What OPoI costs a node, from one run (ratios, since absolute times on a shared machine are noise):
//  - connecting a block of 1,000 OPoI transactions (REQUESTs, COMMITs, REVEALs, each a signed
//    P2WPKH spend of the actor's coin plus its payload) against a block of 1,000 plain P2WPKH
//    spends of the same shape, on the real chain (LMDB, script-check threads) (goal <= 1.25);
//  - getopoirequest against getblockcount requests/s over keep-alive HTTP on one real csd process
//    (goal >= 0.80).
//   node --conditions=@cs/source --import tsx bench/opoi.ts
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import {
  type Actor,
  ActorType,
  OpoiKind,
  type OpoiPayload,
  REGTEST,
  type RequestPayload,
  TASK_OPEN,
  Transaction,
  type TxOut,
  commitmentHash,
  escrowAmount,
  escrowScript,
  fromHex,
  hash160,
  nullDataScript,
  opoiPayloadBytes,
  opoiPayloadScript,
  p2shScript,
  p2wpkhScript,
  sha256,
  toHex,
} from '@cs/consensus';
import type { ConnectTiming } from '../packages/csd/src/chain/events.ts';
import { nextBlock, openHarness, spendOpTrue } from '../packages/csd/test/chain-harness.ts';
import { Daemon } from '../packages/csd/test/daemon.ts';
import { TestKey } from '../packages/csd/test/test-key.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { median, percentile } from './lib/stats.ts';

/** Requests each side of the bench block works on; each gets one COMMIT or REVEAL per committing miner. */
const TARGETS = 111;
const MINERS_PER_REQUEST = 3;
const NEW_REQUESTS = 1000 - 2 * TARGETS * MINERS_PER_REQUEST;
const MINERS = 16;
const REQUESTERS = 32;
const COIN = 1_000_000n;
const FEE = 2_000n;
const PAYMENT = 200_000n;
const FEE_PER_TOKEN = 1_000n;
const MAX_TOKENS = 100;
const TOKENS = 7;
const ROUNDS = 25;
/** Connects before measuring, as in bench/chain-connect.ts: the first ones run while V8 still compiles the hot paths. */
const WARMUP = 5;

interface Coin {
  readonly key: TestKey;
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly value: bigint;
}

interface Party {
  readonly key: TestKey;
  readonly actor: Actor;
  readonly script: Uint8Array;
}

function party(i: number): Party {
  const secret = new Uint8Array(32);
  secret[30] = 0x0b;
  secret[31] = i + 1;
  const key = new TestKey(secret);
  const hash = hash160(key.pub);
  return { key, actor: { type: ActorType.P2WPKH, hash }, script: p2wpkhScript(hash) };
}

/** A signed spend of `coin` (a P2WPKH coin of its key) into `outputs` plus the change back to it. */
function spend(coin: Coin, outputs: readonly TxOut[]): Transaction {
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

/** An OPoI transaction: the actor's coin, the escrow first for a REQUEST, then the payload. */
function opoiTx(coin: Coin, payload: OpoiPayload): Transaction {
  const outputs: TxOut[] = [];
  if (payload.kind === OpoiKind.REQUEST) {
    outputs.push({ value: escrowAmount(PAYMENT, FEE_PER_TOKEN, MAX_TOKENS), scriptPubKey: escrowScript(payload.requestId) });
  }
  if (payload.kind === OpoiKind.STAKE) outputs.push({ value: REGTEST.opoi.minStake, scriptPubKey: p2wpkhScript(payload.miner.hash) });
  outputs.push({ value: 0n, scriptPubKey: opoiPayloadScript(payload) });
  return spend(coin, outputs);
}

/**
 * The plain twin of an OPoI transaction: the same input type, outputs of the same count, values
 * and sizes, but nothing OPoI in them (the escrow becomes a P2SH output, also 23 bytes; the payload
 * an OP_RETURN of the same length whose magic is not "OPOI").
 */
function plainTwin(coin: Coin, opoi: Transaction): Transaction {
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

function requestPayload(requester: Party, n: number): RequestPayload {
  return {
    kind: OpoiKind.REQUEST,
    requestId: Uint8Array.from(Buffer.from(randomUUID().replaceAll('-', ''), 'hex')),
    requester: requester.actor,
    promptHash: sha256(Buffer.from(`prompt ${n}`)),
    maxTokens: MAX_TOKENS,
    payment: PAYMENT,
    feePerToken: FEE_PER_TOKEN,
    promptTokenCount: 0,
    taskType: TASK_OPEN,
    model: 'tiny',
    taskClass: '',
  };
}

interface BlockCompare {
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
}

/**
 * Two sibling blocks on one tip: B with the OPoI transactions, P with their plain twins. B came
 * first, so it is the tip; invalidateblock B makes P the tip (P connects), reconsiderblock B
 * brings B back (equal work, B seen first: P is disconnected and B connects). Each round thus
 * times one connect of each, both after a disconnect of the other, as the chain times it.
 */
export async function benchOpoiConnect(): Promise<BlockCompare> {
  const h = await openHarness({ threads: 0 });
  try {
    const { chain } = h;
    for (let i = 0; i < 110; i++) await chain.processBlock(nextBlock(chain));
    const miners = Array.from({ length: MINERS }, (_, i) => party(i));
    const requesters = Array.from({ length: REQUESTERS }, (_, i) => party(MINERS + i));

    // Coins: every later transaction spends one of its own, made here from mature coinbases.
    const wants: { who: Party; value: bigint }[] = [];
    const want = (who: Party, value = COIN) => wants.push({ who, value }) - 1;
    const stakeCoins = miners.map((m) => want(m, REGTEST.opoi.minStake + FEE));
    const minerCoins = (n: number) => Array.from({ length: n }, (_, i) => want(miners[i % MINERS]));
    const requesterCoins = (n: number) => Array.from({ length: n }, (_, i) => want(requesters[i % REQUESTERS]));
    const revealTargetCoins = requesterCoins(TARGETS);
    const setupCommitCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const commitTargetCoins = requesterCoins(TARGETS);
    const newRequestCoins = requesterCoins(NEW_REQUESTS);
    const benchCommitCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const benchRevealCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const plainCoins = Array.from({ length: 1000 }, (_, i) => want(i < NEW_REQUESTS ? requesters[i % REQUESTERS] : miners[i % MINERS]));

    const coins: Coin[] = [];
    const fans: Transaction[] = [];
    let fanFees = 0n;
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
      fanFees += FEE;
    }
    const mine = async (txs: Transaction[]) => {
      const r = await chain.processBlock(nextBlock(chain, { txs, fees: FEE * BigInt(txs.length) }));
      if (r.status !== 'accepted') throw new Error(`setup block not accepted: ${JSON.stringify(r)}`);
    };
    const fanBlock = await chain.processBlock(nextBlock(chain, { txs: fans, fees: fanFees }));
    if (fanBlock.status !== 'accepted') throw new Error(`funding block not accepted: ${JSON.stringify(fanBlock)}`);

    // Height F+1: stakes, and the requests the bench block reveals answers to.
    const revealTargets = revealTargetCoins.map((_, i) => requestPayload(requesters[i % REQUESTERS], i));
    await mine([
      ...miners.map((m, i) => opoiTx(coins[stakeCoins[i]], { kind: OpoiKind.STAKE, miner: m.actor, modelId: 'tiny', endpoint: '' })),
      ...revealTargets.map((p, i) => opoiTx(coins[revealTargetCoins[i]], p)),
    ]);
    // F+2: their commits (the commit window closes at F+5), and the requests the bench block commits to.
    const answers = revealTargets.flatMap((req, i) =>
      Array.from({ length: MINERS_PER_REQUEST }, (_, j) => {
        const miner = miners[(i * MINERS_PER_REQUEST + j) % MINERS];
        const responseHash = sha256(Buffer.from(`answer ${i}/${j}`));
        const salt = sha256(Buffer.from(`salt ${i}/${j}`));
        return { requestId: req.requestId, miner, responseHash, salt };
      }),
    );
    const commitTargets = commitTargetCoins.map((_, i) => requestPayload(requesters[i % REQUESTERS], TARGETS + i));
    await mine([
      ...answers.map((a, i) =>
        opoiTx(coins[setupCommitCoins[i]], {
          kind: OpoiKind.COMMIT,
          requestId: a.requestId,
          miner: a.miner.actor,
          commitment: commitmentHash(a.requestId, a.miner.actor, a.responseHash, TOKENS, a.salt),
        }),
      ),
      ...commitTargets.map((p, i) => opoiTx(coins[commitTargetCoins[i]], p)),
    ]);
    for (let i = 0; i < REGTEST.opoi.commitWindow - 1; i++) await mine([]);

    // F+6: the bench block, its transactions interleaved as a mempool would order them.
    const kinds: Transaction[][] = [
      Array.from({ length: NEW_REQUESTS }, (_, i) => opoiTx(coins[newRequestCoins[i]], requestPayload(requesters[i % REQUESTERS], 2 * TARGETS + i))),
      commitTargets.flatMap((req, i) =>
        Array.from({ length: MINERS_PER_REQUEST }, (_, j) => {
          const miner = miners[(i * MINERS_PER_REQUEST + j) % MINERS];
          const commitment = commitmentHash(req.requestId, miner.actor, sha256(Buffer.from(`late ${i}/${j}`)), TOKENS, new Uint8Array(32));
          return opoiTx(coins[benchCommitCoins[i * MINERS_PER_REQUEST + j]], {
            kind: OpoiKind.COMMIT,
            requestId: req.requestId,
            miner: miner.actor,
            commitment,
          });
        }),
      ),
      answers.map((a, i) =>
        opoiTx(coins[benchRevealCoins[i]], {
          kind: OpoiKind.REVEAL,
          requestId: a.requestId,
          miner: a.miner.actor,
          responseHash: a.responseHash,
          tokenCount: TOKENS,
          salt: a.salt,
        }),
      ),
    ];
    const opoiTxs: Transaction[] = [];
    for (let i = 0; opoiTxs.length < 1000; i++) for (const list of kinds) if (i < list.length) opoiTxs.push(list[i]);
    const plainTxs = opoiTxs.map((tx, i) => plainTwin(coins[plainCoins[i]], tx));
    const fees = FEE * 1000n;
    const opoiBlock = nextBlock(chain, { txs: opoiTxs, fees });
    const plainBlock = nextBlock(chain, { txs: plainTxs, fees });

    const timings = new Map<string, ConnectTiming[]>([
      [opoiBlock.header.hashHex, []],
      [plainBlock.header.hashHex, []],
    ]);
    let opoiEvents: string[] = [];
    chain.events.on('connect', ({ entry, timing, opoi }) => {
      timings.get(entry.hashHex)?.push(timing);
      if (entry.hashHex === opoiBlock.header.hashHex) opoiEvents = opoi.map((e) => e.type);
    });
    const first = await chain.processBlock(opoiBlock);
    if (first.status !== 'accepted') throw new Error(`OPoI block not accepted: ${JSON.stringify(first)}`);
    const count = (type: string) => opoiEvents.filter((t) => t === type).length;
    if (count('request') !== NEW_REQUESTS || count('commit') !== answers.length || count('reveal') !== answers.length) {
      throw new Error(`OPoI block made other steps than expected: ${opoiEvents.length} events`);
    }
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
    };
  } finally {
    await h.close();
  }
}

interface RpcCompare {
  readonly ratio: number;
  readonly requestRps: number;
  readonly countRps: number;
  readonly bytes: number;
}

const RPC_CONNECTIONS = 8;
const RPC_PER_ROUND = 2_000;
const RPC_ROUNDS = 15;

/**
 * A real regtest csd (wallet, -rpcratelimit=0 since a benchmark is a flood by design) holding a
 * confirmed request with one commit, made through its own RPC; then rounds alternating which
 * method goes first, each figure the median over rounds of getopoirequest/s ÷ getblockcount/s.
 */
export async function benchOpoiRpc(): Promise<RpcCompare> {
  const node = new Daemon({ args: ['-fallbackfee=0.0002', '-rpcratelimit=0'] });
  try {
    await node.start();
    const miner = await node.call<string>('getnewaddress');
    await node.call('generatetoaddress', 110, miner);
    const requester = await node.call<string>('getnewaddress');
    const staker = await node.call<string>('getnewaddress');
    await node.call('sendtoaddress', requester, 1);
    await node.call('sendtoaddress', staker, 5);
    await node.call('generatetoaddress', 1, miner);
    const [coin] = await node.call<{ txid: string; vout: number }[]>('listunspent', 1, 9999999, [staker]);
    await node.call('stakeopoi', staker, coin.txid, coin.vout, 'tiny', '');
    const id = randomUUID();
    const hex = (text: string) => toHex(sha256(Buffer.from(text)));
    await node.call('submitopoirequest', id, 'tiny', hex('What is the capital of France?'), 100, 0.01, requester, 0.0001);
    await node.call('generatetoaddress', 1, miner);
    await node.call('submitopoiresponsecommit', id, hex('Paris.'), staker, null, 2);
    await node.call('generatetoaddress', 1, miner);
    const request = await node.call<{ status: string; response_commits: number }>('getopoirequest', id);
    if (request.status !== 'PENDING' || request.response_commits !== 1) throw new Error(`unexpected request: ${JSON.stringify(request)}`);

    const auth = Buffer.from(`${node.user}:${node.password}`).toString('base64');
    const call = (method: string, params: unknown[]) => {
      const body = JSON.stringify({ jsonrpc: '1.0', id: 'bench', method, params });
      return Buffer.from(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };
    const getRequest = call('getopoirequest', [id]);
    const getCount = call('getblockcount', []);
    const rps = async (bytes: Buffer) => RPC_PER_ROUND / ((await driveKeepAlive(node.rpcPort, bytes, RPC_PER_ROUND, RPC_CONNECTIONS)) / 1000);
    await rps(getCount); // warm-up: JIT on both sides, sockets, caches
    await rps(getRequest);
    const ratios: number[] = [];
    const requestRates: number[] = [];
    const countRates: number[] = [];
    for (let round = 0; round < RPC_ROUNDS; round++) {
      const requestFirst = round % 2 === 1;
      const a = await rps(requestFirst ? getRequest : getCount);
      const b = await rps(requestFirst ? getCount : getRequest);
      const [r, c] = requestFirst ? [a, b] : [b, a];
      ratios.push(r / c);
      requestRates.push(r);
      countRates.push(c);
    }
    const bytes = (await node.http(getRequest.subarray(getRequest.indexOf('\r\n\r\n') + 4).toString())).body.length;
    return { ratio: median(ratios), requestRps: median(requestRates), countRps: median(countRates), bytes };
  } finally {
    await node.stop();
    await node.cleanup();
  }
}

const ms = (x: number) => x.toFixed(1);

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const c = await benchOpoiConnect();
  const split = (p: ConnectTiming['phases']) => `plan ${ms(p.plan)}, scripts ${ms(p.scripts)}, write ${ms(p.write)}`;
  console.log(
    `block connect, 1,000 txs (${NEW_REQUESTS} REQUEST, ${TARGETS * MINERS_PER_REQUEST} COMMIT, ${TARGETS * MINERS_PER_REQUEST} REVEAL) vs 1,000 plain P2WPKH spends, ${c.threads} script threads (median ms): OPoI ${ms(c.opoiMs)}, plain ${ms(c.plainMs)}`,
  );
  console.log(
    `OPoI block / plain block connect: ${c.ratio.toFixed(2)} (goal <= 1.25, ${c.ratio <= 1.25 ? 'ok' : 'ABOVE GOAL'}; middle half of the rounds ${c.ratioQuartiles.map((q) => q.toFixed(2)).join('-')})`,
  );
  console.log(`    split (median ms): OPoI ${split(c.opoiPhases)}; plain ${split(c.plainPhases)}`);
  console.log(`    block sizes: OPoI ${c.opoiBytes} bytes, plain ${c.plainBytes} bytes`);
  const r = await benchOpoiRpc();
  console.log(
    `getopoirequest / getblockcount over keep-alive HTTP on a real csd: ${r.ratio.toFixed(2)} (goal >= 0.80, ${r.ratio >= 0.8 ? 'ok' : 'BELOW GOAL'})`,
  );
  console.log(`    ${Math.round(r.requestRps)} vs ${Math.round(r.countRps)} requests/s (medians; a ${r.bytes}-byte request object)`);
}
