// What OPoI costs a node, from one run (ratios, since absolute times on a shared machine are noise):
//  - connecting a block of 1,000 OPoI transactions (REQUESTs, COMMITs, REVEALs, each a signed
//    P2WPKH spend of the actor's coin plus its payload) against a block of 1,000 plain P2WPKH
//    spends of the same shape, on the real chain (LMDB, script-check threads) (goal <= 1.25);
//  - the same for a block of the VERIFIABLE kinds (VERIFIABLE REQUESTs, PUBLISHes, verdict
//    commits and reveals, bench/opoi-verifiable.ts) (goal <= 1.25);
//  - getopoirequest against getblockcount requests/s over keep-alive HTTP on one real csd process
//    (goal >= 0.80).
//   node --conditions=@cs/source --import tsx bench/opoi.ts
import { randomUUID } from 'node:crypto';
import { OpoiKind, REGTEST, type RequestPayload, TASK_OPEN, type Transaction, commitmentHash, escrowAmount, sha256, toHex } from '@cs/consensus';
import { nextBlock, openHarness } from '../packages/csd/test/chain-harness.ts';
import { Daemon } from '../packages/csd/test/daemon.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { type BlockCompare, type Party, compareSiblings, fund, mine, opoiTx, party, plainTwin, printCompare } from './lib/opoi-blocks.ts';
import { median } from './lib/stats.ts';
import { benchVerifiableConnect } from './opoi-verifiable.ts';

/** Requests each side of the bench block works on; each gets one COMMIT or REVEAL per committing miner. */
const TARGETS = 111;
const MINERS_PER_REQUEST = 3;
const NEW_REQUESTS = 1000 - 2 * TARGETS * MINERS_PER_REQUEST;
const MINERS = 16;
const REQUESTERS = 32;
const COIN = 1_000_000n;
const PAYMENT = 200_000n;
const FEE_PER_TOKEN = 1_000n;
const MAX_TOKENS = 100;
const TOKENS = 7;
const ESCROW = escrowAmount(PAYMENT, FEE_PER_TOKEN, MAX_TOKENS);

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

/** The OPEN kinds: new REQUESTs, COMMITs to requests in their commit window, REVEALs to requests in their reveal window. */
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
    const stakeCoins = miners.map((m) => want(m, REGTEST.opoi.minStake + COIN));
    const minerCoins = (n: number) => Array.from({ length: n }, (_, i) => want(miners[i % MINERS]));
    const requesterCoins = (n: number) => Array.from({ length: n }, (_, i) => want(requesters[i % REQUESTERS]));
    const revealTargetCoins = requesterCoins(TARGETS);
    const setupCommitCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const commitTargetCoins = requesterCoins(TARGETS);
    const newRequestCoins = requesterCoins(NEW_REQUESTS);
    const benchCommitCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const benchRevealCoins = minerCoins(TARGETS * MINERS_PER_REQUEST);
    const plainCoins = Array.from({ length: 1000 }, (_, i) => want(i < NEW_REQUESTS ? requesters[i % REQUESTERS] : miners[i % MINERS]));
    const coins = await fund(chain, wants);

    // Height F+1: stakes, and the requests the bench block reveals answers to.
    const revealTargets = revealTargetCoins.map((_, i) => requestPayload(requesters[i % REQUESTERS], i));
    await mine(chain, [
      ...miners.map((m, i) => opoiTx(coins[stakeCoins[i]], { kind: OpoiKind.STAKE, miner: m.actor, modelId: 'tiny', endpoint: '' })),
      ...revealTargets.map((p, i) => opoiTx(coins[revealTargetCoins[i]], p, ESCROW)),
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
    await mine(chain, [
      ...answers.map((a, i) =>
        opoiTx(coins[setupCommitCoins[i]], {
          kind: OpoiKind.COMMIT,
          requestId: a.requestId,
          miner: a.miner.actor,
          commitment: commitmentHash(a.requestId, a.miner.actor, a.responseHash, TOKENS, a.salt),
        }),
      ),
      ...commitTargets.map((p, i) => opoiTx(coins[commitTargetCoins[i]], p, ESCROW)),
    ]);
    for (let i = 0; i < REGTEST.opoi.commitWindow - 1; i++) await mine(chain, []);

    // F+6: the bench block, its transactions interleaved as a mempool would order them.
    const kinds: Transaction[][] = [
      Array.from({ length: NEW_REQUESTS }, (_, i) =>
        opoiTx(coins[newRequestCoins[i]], requestPayload(requesters[i % REQUESTERS], 2 * TARGETS + i), ESCROW),
      ),
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
    const c = await compareSiblings(chain, opoiTxs, plainTxs);
    if (c.events.get('request') !== NEW_REQUESTS || c.events.get('commit') !== answers.length || c.events.get('reveal') !== answers.length) {
      throw new Error(`OPoI block made other steps than expected: ${JSON.stringify([...c.events])}`);
    }
    return c;
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

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  printCompare(
    `1,000 txs (${NEW_REQUESTS} REQUEST, ${TARGETS * MINERS_PER_REQUEST} COMMIT, ${TARGETS * MINERS_PER_REQUEST} REVEAL)`,
    await benchOpoiConnect(),
  );
  const v = await benchVerifiableConnect();
  printCompare(`1,000 VERIFIABLE-kind txs (${v.mix})`, v.compare);
  const r = await benchOpoiRpc();
  console.log(
    `getopoirequest / getblockcount over keep-alive HTTP on a real csd: ${r.ratio.toFixed(2)} (goal >= 0.80, ${r.ratio >= 0.8 ? 'ok' : 'BELOW GOAL'})`,
  );
  console.log(`    ${Math.round(r.requestRps)} vs ${Math.round(r.countRps)} requests/s (medians; a ${r.bytes}-byte request object)`);
}
