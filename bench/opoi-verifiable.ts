// The VERIFIABLE kinds' block (bench/opoi.ts prints it): 1,000 transactions, a quarter each of new
// VERIFIABLE REQUESTs, PUBLISHes of answers whose publish window is open, verdict commits of drawn
// auditors and verdict reveals, against their plain twins, on the real chain.
import { randomUUID } from 'node:crypto';
import {
  DECODING_GREEDY,
  OpoiKind,
  type OpoiPayload,
  REGTEST,
  type RequestPayload,
  TASK_VERIFIABLE,
  type Transaction,
  VERDICT_VALID,
  commitmentHash,
  escrowAmount,
  sha256,
  toHex,
  verdictCommitment,
  verifiableResponseHash,
} from '@cs/consensus';
import type { Chain } from '../packages/csd/src/chain/chainstate.ts';
import { nextBlock, openHarness } from '../packages/csd/test/chain-harness.ts';
import { type BlockCompare, type Coin, type Party, compareSiblings, fund, mine, opoiTx, party, plainTwin } from './lib/opoi-blocks.ts';

const GROUP = 250;
const MINERS = 16;
const REQUESTERS = 32;
const COIN = 1_000_000n;
const PAYMENT = 200_000n;
const FEE_PER_TOKEN = 1_000n;
const MAX_TOKENS = 16;
const AUDIT_FEE = REGTEST.opoi.minAuditFee;
const ESCROW = escrowAmount(PAYMENT, FEE_PER_TOKEN, MAX_TOKENS) + AUDIT_FEE;
const TOKENS = [101, 102, 103, 104, 105, 106, 107];
const MANIFEST = 'tiny-verifiable';
/** Coins each miner gets for its commits, reveals and verdicts (the draw decides how many verdicts each one signs). */
const COINS_PER_MINER = 260;

/** One VERIFIABLE request of the setup, and what its winner answers. */
interface Job {
  readonly payload: RequestPayload;
  readonly miner: Party;
  readonly prompt: Uint8Array;
  readonly output: Uint8Array;
  readonly salt: Uint8Array;
}

/** Coins handed out per party as transactions need them. */
class Wallets {
  private readonly byParty = new Map<Party, Coin[]>();

  constructor(coins: Coin[], owners: Party[]) {
    coins.forEach((c, i) => {
      const list = this.byParty.get(owners[i]) ?? [];
      list.push(c);
      this.byParty.set(owners[i], list);
    });
  }

  /** The party's last coin worth at least `held` plus a fee's margin. */
  take(who: Party, held = 0n): Coin {
    const list = this.byParty.get(who) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (list[i].value > held + COIN / 2n) return list.splice(i, 1)[0];
    throw new Error('a bench party ran out of coins');
  }
}

export async function benchVerifiableConnect(): Promise<{ compare: BlockCompare; mix: string }> {
  const h = await openHarness({ threads: 0 });
  try {
    const { chain } = h;
    for (let i = 0; i < 110; i++) await chain.processBlock(nextBlock(chain));
    const miners = Array.from({ length: MINERS }, (_, i) => party(100 + i));
    const requesters = Array.from({ length: REQUESTERS }, (_, i) => party(200 + i));
    const publisher = party(300);
    const twins = party(301);
    const byKey = new Map(miners.map((m) => [`00${toHex(m.actor.hash)}`, m]));

    const owners: Party[] = [];
    const values: bigint[] = [];
    const want = (who: Party, n: number, value = COIN) => {
      for (let i = 0; i < n; i++) {
        owners.push(who);
        values.push(value);
      }
    };
    for (const m of miners) want(m, 1, REGTEST.opoi.minStake + COIN);
    want(requesters[0], 1, REGTEST.opoi.manifestFee + COIN);
    for (const m of miners) want(m, COINS_PER_MINER);
    for (const r of requesters) want(r, (4 * GROUP) / REQUESTERS);
    want(publisher, 3 * GROUP);
    want(twins, 4 * GROUP);
    const coins = await fund(
      chain,
      owners.map((who, i) => ({ who, value: values[i] })),
    );
    const wallets = new Wallets(coins, owners);
    const tx = (who: Party, payload: OpoiPayload, held = 0n, burn = 0n) => opoiTx(wallets.take(who, held + burn), payload, held, burn);

    // The manifest, then stakes that serve it (one block: the rules apply in order).
    await mine(chain, [
      tx(
        requesters[0],
        {
          kind: OpoiKind.MANIFEST,
          registrant: requesters[0].actor,
          modelId: MANIFEST,
          ggufSha256: sha256(Buffer.from('bench model')),
          ggufSize: 1234n,
          decoding: DECODING_GREEDY,
          flags: 0,
          tolerance: 65536,
        },
        0n,
        REGTEST.opoi.manifestFee,
      ),
      ...miners.map((m) =>
        tx(m, { kind: OpoiKind.STAKE, miner: m.actor, modelId: MANIFEST, endpoint: '', serves: [MANIFEST] }, REGTEST.opoi.minStake),
      ),
    ]);

    let serial = 0;
    const jobs = () =>
      Array.from({ length: GROUP }, (_, i): Job => {
        const n = serial++;
        const prompt = Buffer.from(`bench prompt ${n}`);
        const payload: RequestPayload = {
          kind: OpoiKind.REQUEST,
          requestId: Uint8Array.from(Buffer.from(randomUUID().replaceAll('-', ''), 'hex')),
          requester: requesters[i % REQUESTERS].actor,
          promptHash: sha256(prompt),
          maxTokens: MAX_TOKENS,
          payment: PAYMENT,
          feePerToken: FEE_PER_TOKEN,
          promptTokenCount: 0,
          taskType: TASK_VERIFIABLE,
          model: MANIFEST,
          taskClass: '',
          auditQuorum: 1,
          auditFee: AUDIT_FEE,
        };
        return { payload, miner: miners[n % MINERS], prompt, output: Buffer.from(`bench answer ${n}`), salt: sha256(Buffer.from(`salt ${n}`)) };
      });
    const requesterOf = (j: Job) => requesters.find((r) => r.actor.hash === j.payload.requester.hash)!;
    const request = (j: Job) => tx(requesterOf(j), j.payload, ESCROW);
    const responseHash = (j: Job) => verifiableResponseHash(TOKENS, j.output);
    const commit = (j: Job) =>
      tx(j.miner, {
        kind: OpoiKind.COMMIT,
        requestId: j.payload.requestId,
        miner: j.miner.actor,
        commitment: commitmentHash(j.payload.requestId, j.miner.actor, responseHash(j), TOKENS.length, j.salt),
      });
    const reveal = (j: Job) =>
      tx(j.miner, {
        kind: OpoiKind.REVEAL,
        requestId: j.payload.requestId,
        miner: j.miner.actor,
        responseHash: responseHash(j),
        tokenCount: TOKENS.length,
        salt: j.salt,
      });
    const publish = (j: Job) =>
      tx(publisher, { kind: OpoiKind.PUBLISH, requestId: j.payload.requestId, prompt: j.prompt, tokens: TOKENS, output: j.output });
    const auditor = (c: Chain, j: Job) => byKey.get(c.opoi.audit(toHex(j.payload.requestId))!.auditors[0].auditor)!;
    const verdictSalt = (j: Job) => sha256(j.salt);
    const verdictCommit = (j: Job) => {
      const a = auditor(chain, j);
      return tx(a, {
        kind: OpoiKind.VERDICT_COMMIT,
        requestId: j.payload.requestId,
        auditor: a.actor,
        commitment: verdictCommitment(j.payload.requestId, a.actor, VERDICT_VALID, verdictSalt(j)),
      });
    };
    const verdictReveal = (j: Job) => {
      const a = auditor(chain, j);
      return tx(a, { kind: OpoiKind.VERDICT_REVEAL, requestId: j.payload.requestId, auditor: a.actor, verdict: VERDICT_VALID, salt: verdictSalt(j) });
    };

    // Heights relative to the bench block T (regtest windows of 4; docs/protocol.md, OPoI windows):
    // R ends in its verdict reveal window at T, C in its verdict commit window, P in its publish window.
    const [R, C, P, N] = [jobs(), jobs(), jobs(), jobs()];
    const schedule: (() => Transaction[])[] = [
      () => R.map(request), // T-15
      () => R.map(commit), // T-14
      () => [],
      () => [],
      () => C.map(request), // T-11
      () => [...R.map(reveal), ...C.map(commit)], // T-10
      () => P.map(request), // T-9
      () => P.map(commit), // T-8
      () => [], // T-7: R resolves
      () => [...R.map(publish), ...C.map(reveal)], // T-6
      () => [], // T-5: R's auditors drawn
      () => [...R.map(verdictCommit), ...P.map(reveal)], // T-4
      () => [], // T-3: C resolves
      () => C.map(publish), // T-2
      () => [], // T-1: C's auditors drawn, P resolves
    ];
    for (const block of schedule) await mine(chain, block());

    const kinds = [N.map(request), P.map(publish), C.map(verdictCommit), R.map(verdictReveal)];
    const opoiTxs: Transaction[] = [];
    for (let i = 0; i < GROUP; i++) for (const list of kinds) opoiTxs.push(list[i]);
    const plainTxs = opoiTxs.map((t) => plainTwin(wallets.take(twins), t));
    const compare = await compareSiblings(chain, opoiTxs, plainTxs);
    const expect = { request: GROUP, publish: GROUP, 'verdict-commit': GROUP, 'verdict-reveal': GROUP };
    for (const [type, n] of Object.entries(expect)) {
      if (compare.events.get(type) !== n) throw new Error(`VERIFIABLE block made other steps than expected: ${JSON.stringify([...compare.events])}`);
    }
    return { compare, mix: `${GROUP} VERIFIABLE REQUEST, ${GROUP} PUBLISH, ${GROUP} verdict commits, ${GROUP} verdict reveals` };
  } finally {
    await h.close();
  }
}
