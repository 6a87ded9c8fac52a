// Generated OPoI histories in the manner of btcd's fullblocktests (issue #9): one seeded generator
// builds random lifecycles (model manifests, stakes serving them, renewals, unstakes, collateral
// releases, OPEN requests, commits, reveals, payouts) as real signed transactions in real regtest blocks, with forks that reorg,
// invalidateblock/reconsiderblock and restarts, and blocks that each break one OPoI rule. Every
// block is offered to a real Chain over LMDB with its expected outcome (accepted, inconclusive, or
// rejected with the bad-opoi-* reason), and after every step the chain's OPoI state is compared
// with a reference model written here from docs/protocol.md section 11: plain maps, derived per
// block from its parent's (so a block's state is a function of its branch alone, and a reorg is
// a lookup). The model reads the generator's intent (payload object, who signed) and the
// transaction's inputs and outputs; it shares no rule code with packages/consensus/src/opoi/rules.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Block,
  type CommitRecord,
  type ManifestPayload,
  type ManifestRecord,
  type OpoiPayload,
  OpoiKind,
  type RequestPayload,
  type RequestRecord,
  REGTEST,
  type StakeRecord,
  type StakeStatus,
  TASK_OPEN,
  Transaction,
  type TxOut,
  actorKey,
  bytesEqual,
  collateralActor,
  collateralScript,
  commitmentHash,
  drawWinner,
  encodeOpoiPayload,
  escrowAmount,
  escrowRequestId,
  escrowScript,
  hash160,
  hashFromHex,
  hashToHex,
  nullDataScript,
  opoiPayloadScript,
  p2wpkhScript,
  payoutOutputs,
  sha256,
  stakeStatus,
  toHex,
} from '@cs/consensus';
import { type Harness, nextBlock, openHarness } from './chain-harness.ts';
import { TestKey } from './test-key.ts';

/** Change both to explore other histories; a failure names the seed and step to replay. */
const SEED = 0x0b5e_0009;
/** Generator steps after the setup; a step is one block, a fork of 2-5 blocks, or a chain operation. */
const STEPS = 300;

const P = REGTEST.opoi;
const FEE = 2_000n;
const COIN = 100_000_000n;

// ---- seeded randomness ----

class Rng {
  constructor(private state: number) {}

  /** mulberry32: small, fast and good enough to drive a generator. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }

  pickOr<T>(xs: readonly T[]): T | null {
    return xs.length === 0 ? null : this.pick(xs);
  }

  bytes(n: number): Uint8Array {
    return Uint8Array.from({ length: n }, () => Math.floor(this.next() * 256));
  }

  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [xs[i], xs[j]] = [xs[j], xs[i]];
    }
    return xs;
  }
}

const rng = new Rng(SEED);

// ---- the parties: P2WPKH keys the test holds ----

interface Party {
  readonly name: string;
  readonly key: TestKey;
  readonly actor: { readonly type: 0; readonly hash: Uint8Array };
  /** Actor key (42 hex digits). */
  readonly id: string;
  readonly script: Uint8Array;
  /** Chance per block that this miner renews its stake (0: never, nor unstakes: its stake lapses). */
  readonly renewRate: number;
}

function party(name: string, renewRate = 0): Party {
  const key = new TestKey(sha256(Buffer.from(`opoi-history ${SEED} ${name}`)));
  const actor = { type: 0 as const, hash: hash160(key.pub) };
  return { name, key, actor, id: actorKey(actor), script: p2wpkhScript(actor.hash), renewRate };
}

const REQUESTERS = [party('alice'), party('bob'), party('carol')];
const MINERS = [party('m0', 0.06), party('m1', 0.03), party('m2', 0.012), party('m3', 0)];
const PARTIES = [...REQUESTERS, ...MINERS];
const partyById = (id: string) => PARTIES.find((p) => p.id === id)!;
const partyByScript = (script: Uint8Array) => PARTIES.find((p) => bytesEqual(p.script, script)) ?? null;

// ---- the reference model ----

interface Coin {
  /** `<txid hex>:<vout>` */
  readonly key: string;
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly value: bigint;
  readonly owner: Party | null;
  /** Request id when the coin is an escrow. */
  readonly escrowOf: string | null;
  /** Whether the coin has the collateral form (output 0 of a STAKE): no key spends it, the OPoI rules release it. */
  readonly collateral?: true;
}

interface Secret {
  readonly responseHash: Uint8Array;
  readonly tokenCount: number;
  readonly salt: Uint8Array;
}

interface Model {
  readonly requests: Map<string, RequestRecord>;
  /** Keyed by request id + miner, as the store keys them. */
  readonly commits: Map<string, CommitRecord>;
  /** What each commitment hides (null: a commitment no reveal can match). */
  readonly secrets: Map<string, Secret | null>;
  readonly stakes: Map<string, StakeRecord>;
  readonly manifests: Map<string, ManifestRecord>;
  /** The parties' coins and the escrows. */
  readonly coins: Map<string, Coin>;
}

const copy = (m: Model): Model => ({
  requests: new Map(m.requests),
  commits: new Map(m.commits),
  secrets: new Map(m.secrets),
  stakes: new Map(m.stakes),
  manifests: new Map(m.manifests),
  coins: new Map(m.coins),
});

/** A transaction with what the generator meant by it. */
interface GenTx {
  readonly tx: Transaction;
  /** The payload object the generator encoded, null for none. */
  readonly payload: OpoiPayload | null;
  /** A payload output the generator broke on purpose (the payload field is then null). */
  readonly fault?: 'bad-opoi-payload' | 'bad-opoi-payload-multiple';
  /** Actor keys of the parties that signed an input spending their own coin (always SIGHASH_ALL). */
  readonly signers: readonly string[];
  readonly secret?: Secret | null;
}

const coinKey = (txidHex: string, vout: number) => `${txidHex}:${vout}`;
const collateralKey = (s: StakeRecord) => coinKey(s.collateralTxid, s.collateralVout);

/** docs/protocol.md 11.4. */
function status(s: StakeRecord, h: number): StakeStatus {
  if (s.unstakeHeight !== null) return h >= s.unstakeHeight + P.unstakeCooldown ? 'UNSTAKED' : 'UNSTAKING';
  return h - s.renewedHeight > P.stakeRenewal ? 'SUSPENDED' : 'ACTIVE';
}

const commitClose = (r: RequestRecord) => (r.firstCommitHeight === null ? null : r.firstCommitHeight + P.commitWindow - 1);
const inCommitWindow = (r: RequestRecord, h: number) => h > r.height && (r.firstCommitHeight === null || h <= commitClose(r)!);
const revealOpen = (r: RequestRecord, h: number) => r.firstCommitHeight !== null && h > commitClose(r)!;

/** The leading outputs a payout must have (11.6). */
function expectedPayout(r: RequestRecord): { script: Uint8Array; value: bigint }[] {
  const requester = partyById(r.requester).script;
  if (r.status === 'EXPIRED') return [{ script: requester, value: r.escrowValue }];
  const pay = r.payment + r.feePerToken * BigInt(r.winnerTokens!);
  const outs = [{ script: partyById(r.winner!).script, value: pay }];
  if (r.escrowValue > pay) outs.push({ script: requester, value: r.escrowValue - pay });
  return outs;
}

/** Applies a transaction at height `h` to `m` (a copy: it is left half-changed on failure); the rule it breaks, or null. */
function modelTx(m: Model, g: GenTx, h: number): string | null {
  if (g.fault) return g.fault;
  const { tx, payload } = g;
  for (let i = 0; i < tx.outputs.length; i++) {
    const script = tx.outputs[i].scriptPubKey;
    if (escrowRequestId(script) !== null && !(i === 0 && payload?.kind === OpoiKind.REQUEST)) return 'bad-opoi-escrow-output';
    if (collateralActor(script) !== null && !(i === 0 && payload?.kind === OpoiKind.STAKE)) return 'bad-opoi-collateral-output';
  }
  let escrowOf: string | null = null;
  let released: StakeRecord | null = null;
  for (const input of tx.inputs) {
    const key = coinKey(hashToHex(input.prevout.txid), input.prevout.vout);
    const coin = m.coins.get(key);
    assert.ok(coin, `the generator spends ${key}, a coin the model does not know`);
    if (coin.escrowOf !== null) {
      if (escrowOf !== null) return 'bad-opoi-payout-multiple';
      escrowOf = coin.escrowOf;
    }
    const stake = [...m.stakes.values()].find((s) => collateralKey(s) === key);
    if (stake) {
      if (status(stake, h) !== 'UNSTAKED') return 'bad-opoi-collateral-locked';
      if (released !== null) return 'bad-opoi-release-multiple';
      released = stake;
    }
  }
  if (released !== null) {
    // 11.4: a release pays the whole collateral to the staker in output 0, and is no payout.
    const out = tx.outputs[0];
    if (escrowOf !== null || out.value !== released.amount || !bytesEqual(out.scriptPubKey, partyById(released.miner).script)) {
      return 'bad-opoi-release-outputs';
    }
    m.stakes.delete(released.miner);
  }
  if (escrowOf !== null) {
    if (payload !== null) return 'bad-opoi-payout-payload';
    const r = m.requests.get(escrowOf);
    if (!r || r.status === 'PENDING') return 'bad-opoi-payout-unresolved';
    const want = expectedPayout(r);
    if (want.some((w, i) => !tx.outputs[i] || tx.outputs[i].value !== w.value || !bytesEqual(tx.outputs[i].scriptPubKey, w.script))) {
      return 'bad-opoi-payout-outputs';
    }
    m.requests.set(r.id, { ...r, payoutTxid: tx.txidHex, payoutHeight: h });
  }
  const reason = payload === null ? null : modelPayload(m, g, payload, h);
  if (reason !== null) return reason;
  for (const input of tx.inputs) m.coins.delete(coinKey(hashToHex(input.prevout.txid), input.prevout.vout));
  tx.outputs.forEach((out, vout) => {
    const escrow = escrowRequestId(out.scriptPubKey);
    const owner = partyByScript(out.scriptPubKey);
    const collateral = collateralActor(out.scriptPubKey) !== null;
    if (owner === null && escrow === null && !collateral) return;
    const key = coinKey(tx.txidHex, vout);
    m.coins.set(key, {
      key,
      txid: tx.txid,
      vout,
      value: out.value,
      owner,
      escrowOf: escrow && toHex(escrow),
      ...(collateral ? { collateral: true } : {}),
    });
  });
  return null;
}

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,63}$/;

/** The payload rules of 11.5, in the documented order. */
function modelPayload(m: Model, g: GenTx, q: OpoiPayload, h: number): string | null {
  // The generator makes OPEN lifecycles only: VERIFIABLE steps have their own generated history (packages/consensus).
  if (q.kind !== OpoiKind.REQUEST && q.kind !== OpoiKind.MANIFEST && !('miner' in q)) throw new Error(`the model has no rule for kind ${q.kind}`);
  const actor = q.kind === OpoiKind.REQUEST ? q.requester : q.kind === OpoiKind.MANIFEST ? q.registrant : q.miner;
  if (!g.signers.includes(actorKey(actor))) return 'bad-opoi-unsigned';
  const out0 = g.tx.outputs[0];
  switch (q.kind) {
    case OpoiKind.REQUEST: {
      const id = toHex(q.requestId);
      if (m.requests.has(id)) return 'bad-opoi-request-duplicate';
      if (!MODEL_NAME.test(q.model)) return 'bad-opoi-model';
      assert.notEqual(q.taskType, 1, 'the model has no VERIFIABLE rule');
      if (q.taskType !== TASK_OPEN) return 'bad-opoi-task-type';
      if (q.maxTokens < 1 || q.maxTokens > P.maxTokens) return 'bad-opoi-max-tokens';
      if (q.payment <= P.feeBase + P.feePerPromptToken * BigInt(q.promptTokenCount)) return 'bad-opoi-payment-too-low';
      const escrowValue = q.payment + q.feePerToken * BigInt(q.maxTokens);
      if (!bytesEqual(out0.scriptPubKey, escrowScript(q.requestId)) || out0.value !== escrowValue) return 'bad-opoi-escrow';
      m.requests.set(id, {
        id,
        txid: g.tx.txidHex,
        height: h,
        requester: actorKey(q.requester),
        executor: q.executor ? actorKey(q.executor) : null,
        model: q.model,
        promptHash: toHex(q.promptHash),
        maxTokens: q.maxTokens,
        payment: q.payment,
        feePerToken: q.feePerToken,
        promptTokenCount: q.promptTokenCount,
        taskType: q.taskType,
        taskClass: q.taskClass,
        auditQuorum: 0,
        auditFee: 0n,
        escrowValue,
        status: 'PENDING',
        firstCommitHeight: null,
        commits: 0,
        reveals: 0,
        winner: null,
        winnerTokens: null,
        resolvedHeight: null,
        payoutTxid: null,
        payoutHeight: null,
        publishTxid: null,
        publishHeight: null,
      });
      return null;
    }
    case OpoiKind.COMMIT:
    case OpoiKind.REVEAL: {
      const r = m.requests.get(toHex(q.requestId));
      if (!r) return 'bad-opoi-request-unknown';
      if (r.status !== 'PENDING') return 'bad-opoi-request-closed';
      const miner = actorKey(q.miner);
      const key = r.id + miner;
      const c = m.commits.get(key);
      const stake = m.stakes.get(miner);
      const active = stake !== undefined && status(stake, h) === 'ACTIVE';
      if (q.kind === OpoiKind.COMMIT) {
        if (r.executor !== null && miner !== r.executor) return 'bad-opoi-not-executor';
        if (!inCommitWindow(r, h)) return 'bad-opoi-commit-window';
        if (!active) return 'bad-opoi-stake-inactive';
        if (c) return 'bad-opoi-commit-duplicate';
        if (r.commits >= P.maxCommits) return 'bad-opoi-commits-full';
        m.commits.set(key, { requestId: r.id, miner, commitment: toHex(q.commitment), txid: g.tx.txidHex, height: h, reveal: null });
        m.secrets.set(key, g.secret ?? null);
        m.requests.set(r.id, { ...r, firstCommitHeight: r.firstCommitHeight ?? h, commits: r.commits + 1 });
        return null;
      }
      if (!revealOpen(r, h)) return 'bad-opoi-reveal-early';
      if (!c) return 'bad-opoi-reveal-no-commit';
      if (c.reveal) return 'bad-opoi-reveal-duplicate';
      if (q.tokenCount > r.maxTokens) return 'bad-opoi-token-count';
      const s = m.secrets.get(key);
      if (!s || s.tokenCount !== q.tokenCount || !bytesEqual(s.responseHash, q.responseHash) || !bytesEqual(s.salt, q.salt)) {
        return 'bad-opoi-reveal-mismatch';
      }
      if (!active) return 'bad-opoi-stake-inactive';
      const reveal = { responseHash: toHex(q.responseHash), tokenCount: q.tokenCount, salt: toHex(q.salt), txid: g.tx.txidHex, height: h };
      m.commits.set(key, { ...c, reveal });
      m.requests.set(r.id, { ...r, reveals: r.reveals + 1 });
      return null;
    }
    case OpoiKind.STAKE: {
      const miner = actorKey(q.miner);
      if (m.stakes.has(miner)) return 'bad-opoi-stake-exists';
      if (!bytesEqual(out0.scriptPubKey, collateralScript(q.miner)) || out0.value < P.minStake) return 'bad-opoi-stake-collateral';
      const serves = q.serves ?? [];
      if (new Set(serves).size !== serves.length || serves.some((id) => !m.manifests.has(id))) return 'bad-opoi-stake-manifest';
      m.stakes.set(miner, {
        miner,
        collateralTxid: g.tx.txidHex,
        collateralVout: 0,
        amount: out0.value,
        modelId: q.modelId,
        endpoint: q.endpoint,
        serves: [...serves],
        txid: g.tx.txidHex,
        height: h,
        renewedHeight: h,
        unstakeHeight: null,
        locks: 0,
        forfeitedBy: null,
      });
      return null;
    }
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE: {
      const s = m.stakes.get(actorKey(q.miner));
      if (!s) return 'bad-opoi-stake-missing';
      if (s.unstakeHeight !== null) return 'bad-opoi-stake-unstaking';
      m.stakes.set(s.miner, q.kind === OpoiKind.RENEW ? { ...s, renewedHeight: h } : { ...s, unstakeHeight: h });
      return null;
    }
    case OpoiKind.MANIFEST: {
      if (!MODEL_NAME.test(q.modelId)) return 'bad-opoi-model';
      if (m.manifests.has(q.modelId)) return 'bad-opoi-manifest-exists';
      if (q.ggufSize === 0n) return 'bad-opoi-manifest-file';
      if (q.decoding !== 0 || q.flags > 0x0f || (q.flags & 3) === 3) return 'bad-opoi-manifest-rule';
      const burned = g.tx.outputs.find((o) => o.scriptPubKey[0] === 0x6a)!.value;
      if (burned < P.manifestFee) return 'bad-opoi-manifest-fee';
      m.manifests.set(q.modelId, {
        modelId: q.modelId,
        registrant: actorKey(q.registrant),
        ggufSha256: toHex(q.ggufSha256),
        ggufSize: q.ggufSize,
        decoding: q.decoding,
        flags: q.flags,
        templateHash: q.templateHash ? toHex(q.templateHash) : null,
        tolerance: q.tolerance,
        fee: burned,
        txid: g.tx.txidHex,
        height: h,
      });
      return null;
    }
  }
}

/** The end of block `h` (11.6): requests whose expiry or reveal deadline is `h` resolve. */
function modelResolve(m: Model, h: number, blockHash: Uint8Array): void {
  for (const r of [...m.requests.values()]) {
    if (r.status !== 'PENDING') continue;
    if (r.firstCommitHeight === null) {
      if (h === r.height + P.requestExpiry) m.requests.set(r.id, { ...r, status: 'EXPIRED', resolvedHeight: h });
      continue;
    }
    if (h !== r.firstCommitHeight + P.commitWindow + P.revealWindow - 1) continue;
    const revealed = [...m.commits.values()].filter((c) => c.requestId === r.id && c.reveal !== null);
    if (revealed.length === 0) {
      m.requests.set(r.id, { ...r, status: 'EXPIRED', resolvedHeight: h });
      continue;
    }
    const winner = drawWinner(
      blockHash,
      hashFromHexRaw(r.id),
      revealed.map((c) => c.miner),
    );
    const tokens = revealed.find((c) => c.miner === winner)!.reveal!.tokenCount;
    m.requests.set(r.id, { ...r, status: 'FULFILLED', winner, winnerTokens: tokens, resolvedHeight: h });
  }
}

const hashFromHexRaw = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

/** A generated block: its place in the tree, its transactions, and the rule it breaks (null: valid). */
interface GenBlock {
  readonly hash: string;
  readonly hashBytes: Uint8Array;
  readonly parent: GenBlock | null;
  readonly height: number;
  readonly txs: readonly GenTx[];
  readonly coinbaseFault: boolean;
  readonly expect: string | null;
  /** The model after this block (valid blocks only), derived from the parent's. */
  state?: Model;
}

/** The model after a valid block, from its parent's: a pure function of the branch. */
function stateAfter(b: GenBlock): Model {
  if (b.state) return b.state;
  const m = copy(stateAfter(b.parent!));
  assert.equal(b.coinbaseFault, false);
  for (const g of b.txs) {
    if (g.payload?.kind === OpoiKind.COMMIT && m.requests.get(toHex(g.payload.requestId))?.executor) count('executor commit');
    assert.equal(modelTx(m, g, b.height), null, 'a block expected valid replays in the model');
  }
  modelResolve(m, b.height, b.hashBytes);
  for (const [miner, was] of b.parent!.state!.stakes) if (m.stakes.get(miner)?.txid !== was.txid) count('collateral released');
  b.state = m;
  return m;
}

// ---- building transactions ----

const locked = (w: Model) => new Set([...w.stakes.values()].map(collateralKey));

function pickCoin(w: Model, payer: Party, need: bigint): Coin | null {
  const held = locked(w);
  return rng.pickOr([...w.coins.values()].filter((c) => c.owner === payer && !held.has(c.key) && c.value >= need));
}

interface Extra {
  readonly coin: Coin;
  /** The party signing this input, null for an escrow (empty witness). */
  readonly signer: Party | null;
}

/**
 * A transaction paid from one of `payer`'s coins (change back to it): the fixed leading outputs,
 * then the payload and the change in random order, and the inputs in random order.
 */
function build(
  w: Model,
  payer: Party,
  fixed: TxOut[],
  payloadScripts: Uint8Array[],
  extra: Extra[] = [],
  burn = 0n,
): { tx: Transaction; signers: string[] } | null {
  const outSum = fixed.reduce((a, o) => a + o.value, burn);
  const extraSum = extra.reduce((a, e) => a + e.coin.value, 0n);
  const need = outSum + FEE - extraSum;
  const coin = pickCoin(w, payer, need > 0n ? need : 0n);
  if (!coin) return null;
  const change = coin.value + extraSum - outSum - FEE;
  const ins: Extra[] = rng.shuffle([{ coin, signer: payer }, ...extra]);
  // A MANIFEST's payload output burns its fee: `burn` goes on the first payload output.
  const tail: TxOut[] = payloadScripts.map((scriptPubKey, i) => ({ value: i === 0 ? burn : 0n, scriptPubKey }));
  if (change > 0n) tail.push({ value: change, scriptPubKey: payer.script });
  let tx = new Transaction({
    version: 2,
    inputs: ins.map((i) => ({ prevout: { txid: i.coin.txid, vout: i.coin.vout }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] })),
    outputs: [...fixed, ...rng.shuffle(tail)],
    locktime: 0,
  });
  ins.forEach((i, index) => {
    if (i.signer) tx = i.signer.key.signInput(tx, index, i.coin.value);
  });
  return { tx, signers: [...new Set(ins.flatMap((i) => (i.signer ? [i.signer.id] : [])))] };
}

/** An OPoI transaction of `payer` carrying `payload`. */
function act(w: Model, payer: Party, payload: OpoiPayload, fixed: TxOut[] = [], extra: Extra[] = [], secret?: Secret | null): GenTx | null {
  const built = build(w, payer, fixed, [opoiPayloadScript(payload)], extra);
  return built && { ...built, payload, secret };
}

interface RequestShape {
  id?: Uint8Array;
  maxTokens?: number;
  payment?: (floor: bigint) => bigint;
  model?: string;
  taskType?: number;
  feePerToken?: bigint;
  escrowDelta?: bigint;
  escrowId?: Uint8Array;
  /** The staker the request binds (null: none); a random miner one time in three when not given. */
  executor?: Party | null;
}

function request(w: Model, requester: Party, shape: RequestShape = {}): GenTx | null {
  const requestId = shape.id ?? rng.bytes(16);
  const promptTokenCount = rng.chance(0.5) ? 0 : rng.int(1, 50);
  const floor = P.feeBase + P.feePerPromptToken * BigInt(promptTokenCount);
  // One in five pays the least the rule allows.
  const payment = shape.payment ? shape.payment(floor) : floor + 1n + (rng.chance(0.2) ? 0n : BigInt(rng.int(0, 3_000_000)));
  const maxTokens = shape.maxTokens ?? (rng.chance(0.2) ? 1 : rng.int(1, 1000));
  const feePerToken = shape.feePerToken ?? (rng.chance(0.2) ? 0n : BigInt(rng.int(1, 1000)));
  const executor = shape.executor !== undefined ? shape.executor : rng.chance(1 / 3) ? rng.pick(MINERS) : null;
  const payload: OpoiPayload = {
    kind: OpoiKind.REQUEST,
    requestId,
    requester: requester.actor,
    promptHash: sha256(rng.bytes(8)),
    maxTokens,
    payment,
    feePerToken,
    promptTokenCount,
    taskType: shape.taskType ?? TASK_OPEN,
    model: shape.model ?? rng.pick(['tiny', 'llama3.2:1b', 'org/model-7b.Q4']),
    taskClass: rng.pick(['', 'chat', 'code']),
    ...(executor ? { executor: executor.actor } : {}),
  };
  const value = escrowAmount(payment, feePerToken, maxTokens) + (shape.escrowDelta ?? 0n);
  return act(w, requester, payload, [{ value, scriptPubKey: escrowScript(shape.escrowId ?? requestId) }]);
}

/** Model ids the manifests are registered under (a few, so that some registrations collide). */
const MANIFEST_IDS = ['tiny', 'llama3.2:1b', 'qwen2.5-0.5b-q4', 'org/model-7b.Q4', 'phi-3-mini'];

function manifest(
  w: Model,
  registrant: Party,
  shape: Partial<ManifestPayload> = {},
  burn = P.manifestFee + (rng.chance(0.5) ? 0n : 1_000n),
): GenTx | null {
  const flags = rng.int(0, 2) | (rng.chance(0.5) ? 4 : 0) | (rng.chance(0.3) ? 8 : 0);
  const payload: ManifestPayload = {
    kind: OpoiKind.MANIFEST,
    registrant: registrant.actor,
    modelId: rng.pickOr(MANIFEST_IDS.filter((id) => !w.manifests.has(id))) ?? `m-${toHex(rng.bytes(4))}`,
    ggufSha256: rng.bytes(32),
    ggufSize: BigInt(rng.int(1, 2 ** 40)),
    decoding: 0,
    flags,
    ...(flags & 8 ? { templateHash: rng.bytes(32) } : {}),
    tolerance: rng.int(0, 2 ** 20),
    ...shape,
  };
  const built = build(w, registrant, [], [opoiPayloadScript(payload)], [], burn);
  return built && { ...built, payload };
}

function commit(w: Model, miner: Party, r: { readonly id: string; readonly maxTokens: number }): GenTx | null {
  const id = hashFromHexRaw(r.id);
  // One commitment in twenty claims more tokens than allowed: its reveal can never be valid.
  const secret = {
    responseHash: sha256(rng.bytes(12)),
    tokenCount: rng.chance(0.05) ? r.maxTokens + 1 : rng.int(0, r.maxTokens),
    salt: rng.bytes(32),
  };
  const commitment = commitmentHash(id, miner.actor, secret.responseHash, secret.tokenCount, secret.salt);
  return act(w, miner, { kind: OpoiKind.COMMIT, requestId: id, miner: miner.actor, commitment }, [], [], secret);
}

function reveal(w: Model, miner: Party, r: RequestRecord, change: Partial<Secret> = {}): GenTx | null {
  const s = w.secrets.get(r.id + miner.id) ?? { responseHash: rng.bytes(32), tokenCount: rng.int(0, r.maxTokens), salt: rng.bytes(32) };
  const { responseHash, tokenCount, salt } = { ...s, ...change };
  return act(w, miner, { kind: OpoiKind.REVEAL, requestId: hashFromHexRaw(r.id), miner: miner.actor, responseHash, tokenCount, salt });
}

function stake(w: Model, miner: Party, collateral: bigint, to = collateralScript(miner.actor), serves?: string[]): GenTx | null {
  const payload: OpoiPayload = {
    kind: OpoiKind.STAKE,
    miner: miner.actor,
    modelId: rng.pick(['tiny', 'llama3.2:1b']),
    endpoint: rng.pick(['', 'http://127.0.0.1:8080']),
  };
  // Half the stakes declare some of the registered manifests.
  const list = serves ?? (rng.chance(0.5) ? rng.shuffle([...w.manifests.keys()]).slice(0, rng.int(1, 8)) : []);
  return act(w, miner, list.length > 0 ? { ...payload, serves: list } : payload, [{ value: collateral, scriptPubKey: to }]);
}

/**
 * `then` on the state after the release of `p`'s UNSTAKED collateral in the same block (earlier in
 * it), or on `w` itself when `p` has no stake: a STAKE needs the last one's collateral released.
 */
function afterRelease(w: Model, h: number, p: Party, then: (next: Model) => GenTx | null): GenTx | GenTx[] | null {
  if (!w.stakes.has(p.id)) return then(w);
  const rel = release(w, p);
  const next = copy(w);
  if (!rel || modelTx(next, rel, h) !== null) return null;
  const last = then(next);
  return last && [rel, last];
}

const stakeAction = (w: Model, miner: Party, kind: OpoiKind.RENEW | OpoiKind.UNSTAKE, payer = miner) => act(w, payer, { kind, miner: miner.actor });

/** The release of an UNSTAKED collateral (11.4): output 0 pays it all to the staker; anyone may send it and pay the fee. */
function release(w: Model, miner: Party, payer = miner, out0?: TxOut): GenTx | null {
  const s = w.stakes.get(miner.id)!;
  const pay = out0 ?? { value: s.amount, scriptPubKey: miner.script };
  const built = build(w, payer, [pay], [], [{ coin: w.coins.get(collateralKey(s))!, signer: null }]);
  return built && { ...built, payload: null };
}

function payout(
  w: Model,
  r: RequestRecord,
  payer: Party,
  outputs: TxOut[] = payoutOutputs(r).map((o) => ({ value: o.value, scriptPubKey: hashFromHexRaw(o.script) })),
  payload?: OpoiPayload,
  escrows = [r],
): GenTx | null {
  const coins = escrows.map((e) => [...w.coins.values()].find((c) => c.escrowOf === e.id));
  if (coins.some((c) => c === undefined)) return null;
  const extra = coins.map((coin) => ({ coin: coin!, signer: null }));
  const built = build(w, payer, outputs, payload ? [opoiPayloadScript(payload)] : [], extra);
  return built && { ...built, payload: payload ?? null };
}

// ---- what the generator picks from ----

const requestsOf = (w: Model, f: (r: RequestRecord) => boolean) => [...w.requests.values()].filter(f);
const commitsOf = (w: Model, f: (c: CommitRecord, r: RequestRecord) => boolean) =>
  [...w.commits.values()]
    .filter((c) => f(c, w.requests.get(c.requestId)!))
    .map((c) => ({ c, r: w.requests.get(c.requestId)!, miner: partyById(c.miner) }));
const minersWith = (w: Model, _h: number, f: (s: StakeRecord | undefined) => boolean) => MINERS.filter((m) => f(w.stakes.get(m.id)));
const isActive = (h: number) => (s: StakeRecord | undefined) => s !== undefined && status(s, h) === 'ACTIVE';
/** Whether the request takes a COMMIT from this miner at all (it names no executor, or this one). */
const mayCommit = (r: RequestRecord, m: Party) => r.executor === null || r.executor === m.id;
const unpaid = (w: Model) => requestsOf(w, (r) => r.status !== 'PENDING' && r.payoutTxid === null);

type Proposer = (w: Model, h: number) => GenTx | GenTx[] | null;

/** Valid-looking actions for a block; the model drops those the state refuses. */
function proposers(): Proposer[] {
  const list: Proposer[] = [];
  for (const q of REQUESTERS) if (rng.chance(0.25)) list.push((w) => request(w, q));
  if (rng.chance(0.1)) list.push((w) => manifest(w, rng.pick(PARTIES)));
  for (const m of MINERS) {
    if (rng.chance(m.renewRate)) list.push((w) => stakeAction(w, m, OpoiKind.RENEW));
    // The miner that never renews never unstakes either: its stake lapses into SUSPENDED.
    if (m.renewRate > 0 && rng.chance(0.02)) list.push((w) => stakeAction(w, m, OpoiKind.UNSTAKE));
    // Miners stay unstaked for a while (about ten blocks) before staking again.
    if (rng.chance(0.12))
      list.push((w, h) => {
        const s = w.stakes.get(m.id);
        if (!s) return stake(w, m, P.minStake + BigInt(rng.int(0, 50_000_000)));
        if (status(s, h) !== 'UNSTAKED') return null;
        return release(w, m, rng.chance(0.7) ? m : rng.pick(PARTIES));
      });
  }
  for (let n = rng.int(0, 4); n > 0; n--) {
    list.push((w, h) => {
      const r = rng.pickOr(requestsOf(w, (r) => r.status === 'PENDING' && inCommitWindow(r, h)));
      if (!r) return null;
      // Mostly active miners that have not committed; sometimes anyone (the model drops the refused).
      const fresh = rng.chance(0.85);
      const m = rng.pickOr(fresh ? minersWith(w, h, isActive(h)).filter((m) => mayCommit(r, m) && !w.commits.has(r.id + m.id)) : MINERS);
      return m && commit(w, m, r);
    });
  }
  for (let n = rng.int(0, 4); n > 0; n--) {
    list.push((w, h) => {
      const x = rng.pickOr(commitsOf(w, (c, r) => r.status === 'PENDING' && revealOpen(r, h) && c.reveal === null));
      return x && rng.chance(0.85) ? reveal(w, x.miner, x.r) : null;
    });
  }
  for (let n = rng.int(0, 2); n > 0; n--) {
    list.push((w) => {
      const r = rng.pickOr(unpaid(w));
      return r && payout(w, r, rng.pick(PARTIES));
    });
  }
  return rng.shuffle(list);
}

interface Breaker {
  readonly reason: string;
  readonly coinbase?: true;
  /** Valid transactions then one that breaks `reason` (or null when the state offers no occasion). */
  readonly make?: (w: Model, h: number) => GenTx | GenTx[] | null;
}

const randomMiner = () => rng.pick(MINERS);
const otherThan = (p: Party) => rng.pick(PARTIES.filter((x) => x !== p));

const BREAKERS: Breaker[] = [
  {
    reason: 'bad-opoi-collateral-locked',
    make: (w, h) => {
      const s = rng.pickOr([...w.stakes.values()].filter((s) => status(s, h) !== 'UNSTAKED'));
      return s && release(w, partyById(s.miner));
    },
  },
  {
    // A release paying the staker less or more than its whole collateral, or someone else.
    reason: 'bad-opoi-release-outputs',
    make: (w, h) => {
      const s = rng.pickOr([...w.stakes.values()].filter((s) => status(s, h) === 'UNSTAKED'));
      if (!s) return null;
      const m = partyById(s.miner);
      const out0 = rng.pick([
        { value: s.amount - 1n, scriptPubKey: m.script },
        { value: s.amount + 1n, scriptPubKey: m.script },
        { value: s.amount, scriptPubKey: otherThan(m).script },
      ]);
      return release(w, m, m, out0);
    },
  },
  {
    // The collateral form anywhere but a STAKE's output 0.
    reason: 'bad-opoi-collateral-output',
    make: (w) => {
      const payer = rng.pick(PARTIES);
      const fake = { value: 1_000n, scriptPubKey: collateralScript(rng.pick(PARTIES).actor) };
      if (rng.chance(0.5)) {
        const built = build(w, payer, rng.shuffle([fake, { value: 5_000n, scriptPubKey: payer.script }]), []);
        return built && { ...built, payload: null };
      }
      // A STAKE whose collateral is right, with a second collateral-form output.
      const m = rng.pick(MINERS);
      const q = stake(w, m, P.minStake);
      const built = q && build(w, m, [q.tx.outputs[0], fake], [opoiPayloadScript(q.payload!)]);
      return built && { ...built, payload: q!.payload };
    },
  },
  {
    reason: 'bad-opoi-commit-window',
    make: (w, h) => {
      const m = rng.pickOr(minersWith(w, h, isActive(h)));
      if (!m) return null;
      const late = rng.pickOr(
        requestsOf(
          w,
          (r) => r.status === 'PENDING' && r.firstCommitHeight !== null && h > commitClose(r)! && mayCommit(r, m) && !w.commits.has(r.id + m.id),
        ),
      );
      if (late && rng.chance(0.6)) return commit(w, m, late);
      // A commit in the block of its own request.
      const q = request(w, rng.pick(REQUESTERS), { executor: rng.chance(0.5) ? m : null });
      if (!q) return null;
      const next = copy(w);
      assert.equal(modelTx(next, q, h), null);
      const c = commit(next, m, next.requests.get(toHex((q.payload as RequestPayload).requestId))!);
      return c && [q, c];
    },
  },
  {
    reason: 'bad-opoi-commit-duplicate',
    make: (w, h) => {
      const x = rng.pickOr(commitsOf(w, (c, r) => r.status === 'PENDING' && inCommitWindow(r, h) && isActive(h)(w.stakes.get(c.miner))));
      return x && commit(w, x.miner, x.r);
    },
  },
  {
    reason: 'bad-opoi-stake-inactive',
    make: (w, h) => {
      const r = rng.pickOr(requestsOf(w, (r) => r.status === 'PENDING' && inCommitWindow(r, h)));
      const m = r && rng.pickOr(minersWith(w, h, (s) => !isActive(h)(s)).filter((m) => mayCommit(r, m) && !w.commits.has(r.id + m.id)));
      return m && commit(w, m, r!);
    },
  },
  {
    // An ACTIVE staker committing to a request bound to another: confirmed earlier, or in this very block.
    reason: 'bad-opoi-not-executor',
    make: (w, h) => {
      const m = rng.pickOr(minersWith(w, h, isActive(h)));
      if (!m) return null;
      const bound = rng.pickOr(requestsOf(w, (r) => r.status === 'PENDING' && inCommitWindow(r, h) && !mayCommit(r, m)));
      if (bound && rng.chance(0.7)) return commit(w, m, bound);
      const q = request(w, rng.pick(REQUESTERS), { executor: otherThan(m) });
      if (!q) return null;
      const next = copy(w);
      assert.equal(modelTx(next, q, h), null);
      const c = commit(next, m, next.requests.get(toHex((q.payload as RequestPayload).requestId))!);
      return c && [q, c];
    },
  },
  {
    reason: 'bad-opoi-request-unknown',
    make: (w, h) => {
      const m = rng.pickOr(minersWith(w, h, isActive(h)));
      return m && commit(w, m, { id: toHex(rng.bytes(16)), maxTokens: 10 });
    },
  },
  {
    reason: 'bad-opoi-request-closed',
    make: (w, h) => {
      const m = rng.pickOr(minersWith(w, h, isActive(h)));
      const r = rng.pickOr(requestsOf(w, (r) => r.status !== 'PENDING'));
      return m && r && (rng.chance(0.5) ? commit(w, m, r) : reveal(w, m, r));
    },
  },
  {
    reason: 'bad-opoi-reveal-early',
    make: (w, h) => {
      const x = rng.pickOr(commitsOf(w, (_c, r) => r.status === 'PENDING' && !revealOpen(r, h)));
      return x && reveal(w, x.miner, x.r);
    },
  },
  {
    reason: 'bad-opoi-reveal-mismatch',
    make: (w, h) => {
      const x = rng.pickOr(commitsOf(w, (c, r) => r.status === 'PENDING' && revealOpen(r, h) && c.reveal === null));
      if (!x) return null;
      const s = w.secrets.get(x.c.requestId + x.c.miner);
      if (!s || s.tokenCount > x.r.maxTokens) return null;
      const change = rng.pick<Partial<Secret>>([
        { salt: rng.bytes(32) },
        { responseHash: rng.bytes(32) },
        { tokenCount: s.tokenCount === 0 ? 1 : s.tokenCount - 1 },
      ]);
      if (change.tokenCount !== undefined && change.tokenCount > x.r.maxTokens) return null;
      return reveal(w, x.miner, x.r, change);
    },
  },
  {
    reason: 'bad-opoi-reveal-no-commit',
    make: (w, h) => {
      const r = rng.pickOr(requestsOf(w, (r) => r.status === 'PENDING' && revealOpen(r, h)));
      const m = r && rng.pickOr(MINERS.filter((m) => !w.commits.has(r.id + m.id)));
      return m && reveal(w, m, r!);
    },
  },
  {
    reason: 'bad-opoi-reveal-duplicate',
    make: (w) => {
      const x = rng.pickOr(commitsOf(w, (c, r) => r.status === 'PENDING' && c.reveal !== null));
      return x && reveal(w, x.miner, x.r);
    },
  },
  {
    reason: 'bad-opoi-token-count',
    make: (w, h) => {
      const x = rng.pickOr(commitsOf(w, (c, r) => r.status === 'PENDING' && revealOpen(r, h) && c.reveal === null));
      return x && reveal(w, x.miner, x.r, { tokenCount: x.r.maxTokens + rng.int(1, 3) });
    },
  },
  {
    reason: 'bad-opoi-payout-outputs',
    make: (w) => {
      const r = rng.pickOr(unpaid(w));
      if (!r) return null;
      const outs: TxOut[] = payoutOutputs(r).map((o) => ({ value: o.value, scriptPubKey: hashFromHexRaw(o.script) }));
      const i = rng.int(0, outs.length - 1);
      const how = rng.int(0, 3);
      if (how === 0) outs[i] = { ...outs[i], value: outs[i].value + 1n };
      else if (how === 1) outs[i] = { ...outs[i], value: outs[i].value - 1n };
      else if (how === 2) outs[i] = { ...outs[i], scriptPubKey: otherThan(partyByScript(outs[i].scriptPubKey)!).script };
      else if (outs.length === 2) outs.pop();
      else outs.unshift({ value: 1n, scriptPubKey: rng.pick(PARTIES).script });
      return payout(w, r, rng.pick(PARTIES), outs);
    },
  },
  {
    reason: 'bad-opoi-payout-unresolved',
    make: (w) => {
      const r = rng.pickOr(requestsOf(w, (r) => r.status === 'PENDING'));
      return r && payout(w, r, rng.pick(PARTIES), [{ value: r.escrowValue, scriptPubKey: partyById(r.requester).script }]);
    },
  },
  {
    reason: 'bad-opoi-payout-multiple',
    make: (w) => {
      const rs = rng.shuffle(unpaid(w)).slice(0, 2);
      return rs.length === 2 ? payout(w, rs[0], rng.pick(PARTIES), undefined, undefined, rs) : null;
    },
  },
  {
    reason: 'bad-opoi-payout-payload',
    make: (w) => {
      const r = rng.pickOr(unpaid(w));
      const payer = rng.pick(PARTIES);
      return r && payout(w, r, payer, undefined, { kind: OpoiKind.RENEW, miner: payer.actor });
    },
  },
  {
    reason: 'bad-opoi-escrow-output',
    make: (w) => {
      const payer = rng.pick(PARTIES);
      const fake = { value: 1_000n, scriptPubKey: escrowScript(rng.bytes(16)) };
      if (rng.chance(0.5)) {
        const built = build(w, payer, rng.shuffle([fake, { value: 5_000n, scriptPubKey: payer.script }]), []);
        return built && { ...built, payload: null };
      }
      // A REQUEST whose escrow is right, with a second escrow-form output.
      const requester = rng.pick(REQUESTERS);
      const q = request(w, requester);
      const built = q && build(w, requester, [q.tx.outputs[0], fake], [opoiPayloadScript(q.payload!)]);
      return built && { ...built, payload: q!.payload };
    },
  },
  { reason: 'bad-opoi-coinbase', coinbase: true },
  {
    reason: 'bad-opoi-payment-too-low',
    make: (w) => request(w, rng.pick(REQUESTERS), { payment: (floor) => floor - BigInt(rng.pick([0, 0, 1, 50_000])) }),
  },
  {
    reason: 'bad-opoi-max-tokens',
    make: (w) => request(w, rng.pick(REQUESTERS), { maxTokens: rng.pick([0, P.maxTokens + 1]), feePerToken: 0n }),
  },
  {
    reason: 'bad-opoi-escrow',
    make: (w) => request(w, rng.pick(REQUESTERS), rng.chance(0.7) ? { escrowDelta: rng.pick([-1n, 1n]) } : { escrowId: rng.bytes(16) }),
  },
  {
    reason: 'bad-opoi-request-duplicate',
    make: (w) => {
      const r = rng.pickOr([...w.requests.values()]);
      return r && request(w, rng.pick(REQUESTERS), { id: hashFromHexRaw(r.id) });
    },
  },
  {
    reason: 'bad-opoi-model',
    make: (w) => {
      const name = rng.pick(['', '-tiny', 'two words', 'x'.repeat(64).replace(/^x/, '.')]);
      return rng.chance(0.7) ? request(w, rng.pick(REQUESTERS), { model: name }) : manifest(w, rng.pick(PARTIES), { modelId: name });
    },
  },
  {
    // A registered model id again, confirmed earlier or in this very block.
    reason: 'bad-opoi-manifest-exists',
    make: (w, h) => {
      const registrant = rng.pick(PARTIES);
      const old = rng.pickOr([...w.manifests.keys()]);
      if (old && rng.chance(0.6)) return manifest(w, registrant, { modelId: old });
      const first = manifest(w, registrant);
      if (!first) return null;
      const next = copy(w);
      if (modelTx(next, first, h) !== null) return null;
      const again = manifest(next, otherThan(registrant), { modelId: (first.payload as ManifestPayload).modelId });
      return again && [first, again];
    },
  },
  { reason: 'bad-opoi-manifest-fee', make: (w) => manifest(w, rng.pick(PARTIES), {}, rng.pick([0n, P.manifestFee - 1n])) },
  { reason: 'bad-opoi-manifest-file', make: (w) => manifest(w, rng.pick(PARTIES), { ggufSize: 0n }) },
  {
    reason: 'bad-opoi-manifest-rule',
    make: (w) =>
      manifest(w, rng.pick(PARTIES), rng.pick<Partial<ManifestPayload>>([{ decoding: 1 }, { flags: 3 }, { flags: 0x10 }, { flags: 0x84 }])),
  },
  {
    // A STAKE serving an unregistered model id, or one id twice.
    reason: 'bad-opoi-stake-manifest',
    make: (w, h) => {
      const held = locked(w);
      const rich = (p: Party) => [...w.coins.values()].some((c) => c.owner === p && !held.has(c.key) && c.value >= P.minStake + FEE);
      const p = rng.pickOr(PARTIES.filter((p) => (!w.stakes.has(p.id) || status(w.stakes.get(p.id)!, h) === 'UNSTAKED') && rich(p)));
      if (!p) return null;
      const registered = rng.pickOr([...w.manifests.keys()]);
      const unregistered = rng.pickOr(['never-registered', ...MANIFEST_IDS.filter((id) => !w.manifests.has(id))])!;
      const serves =
        registered && rng.chance(0.5)
          ? rng.pick([
              [registered, unregistered],
              [registered, registered],
            ])
          : [unregistered];
      return afterRelease(w, h, p, (next) => stake(next, p, P.minStake, collateralScript(p.actor), serves));
    },
  },
  // Task type 1 is VERIFIABLE (not generated here): any other but 0 is unknown.
  { reason: 'bad-opoi-task-type', make: (w) => request(w, rng.pick(REQUESTERS), { taskType: rng.pick([2, 3, 255]) }) },
  {
    reason: 'bad-opoi-unsigned',
    make: (w) => {
      if (rng.chance(0.5)) {
        const m = randomMiner();
        return stakeAction(w, m, rng.pick([OpoiKind.RENEW, OpoiKind.UNSTAKE]), otherThan(m));
      }
      const q = rng.pick(REQUESTERS);
      const g = request(w, q);
      if (!g) return null;
      const built = build(w, otherThan(q), [g.tx.outputs[0]], [opoiPayloadScript(g.payload!)]);
      return built && { ...built, payload: g.payload };
    },
  },
  {
    reason: 'bad-opoi-stake-exists',
    make: (w) => {
      const s = rng.pickOr([...w.stakes.values()]);
      return (
        s &&
        act(w, partyById(s.miner), { kind: OpoiKind.STAKE, miner: partyById(s.miner).actor, modelId: 'tiny', endpoint: '' }, [
          { value: P.minStake, scriptPubKey: collateralScript(partyById(s.miner).actor) },
        ])
      );
    },
  },
  {
    reason: 'bad-opoi-stake-collateral',
    make: (w, h) => {
      // Any party may stake (requesters too), once its last stake's collateral is released.
      const p = rng.pickOr(PARTIES.filter((p) => !w.stakes.has(p.id) || status(w.stakes.get(p.id)!, h) === 'UNSTAKED'));
      if (!p) return null;
      const to = rng.pick([otherThan(p).script, collateralScript(otherThan(p).actor), p.script]);
      return afterRelease(w, h, p, (next) =>
        rng.chance(0.5) ? stake(next, p, rng.pick([P.minStake - 1n, 1_000n])) : stake(next, p, P.minStake, to),
      );
    },
  },
  {
    reason: 'bad-opoi-stake-missing',
    make: (w) => {
      const p = rng.pickOr(PARTIES.filter((p) => !w.stakes.has(p.id)));
      return p && stakeAction(w, p, rng.pick([OpoiKind.RENEW, OpoiKind.UNSTAKE]));
    },
  },
  {
    reason: 'bad-opoi-stake-unstaking',
    make: (w) => {
      const s = rng.pickOr([...w.stakes.values()].filter((s) => s.unstakeHeight !== null));
      return s && stakeAction(w, partyById(s.miner), rng.pick([OpoiKind.RENEW, OpoiKind.UNSTAKE]));
    },
  },
  {
    reason: 'bad-opoi-payload',
    make: (w) => {
      const m = randomMiner();
      const bytes = encodeOpoiPayload({ kind: OpoiKind.RENEW, miner: m.actor });
      const broken = rng.pick([
        Uint8Array.from([...bytes.subarray(0, 4), 2, ...bytes.subarray(5)]), // unknown version
        Uint8Array.from([...bytes.subarray(0, 5), 9, ...bytes.subarray(6)]), // unknown kind
        bytes.subarray(0, bytes.length - 1), // truncated
        Uint8Array.from([...bytes, 0]), // trailing byte
      ]);
      const built = build(w, m, [], [nullDataScript(broken)]);
      return built && { ...built, payload: null, fault: 'bad-opoi-payload' as const };
    },
  },
  {
    reason: 'bad-opoi-payload-multiple',
    make: (w) => {
      const m = randomMiner();
      const script = opoiPayloadScript({ kind: OpoiKind.RENEW, miner: m.actor });
      const built = build(w, m, [], [script, script]);
      return built && { ...built, payload: null, fault: 'bad-opoi-payload-multiple' as const };
    },
  },
  // Any action by any party on any request: the model says which rule (if any) it breaks.
  {
    reason: 'noise',
    make: (w) => {
      const m = randomMiner();
      const r = rng.pickOr([...w.requests.values()]);
      switch (rng.int(0, 4)) {
        case 0:
          return r && commit(w, m, r);
        case 1:
          return r && reveal(w, m, r);
        case 2:
          return stakeAction(w, m, rng.pick([OpoiKind.RENEW, OpoiKind.UNSTAKE]));
        case 3:
          return rng.chance(0.5) ? stake(w, m, P.minStake) : w.stakes.has(m.id) ? release(w, m) : null;
        default:
          return (
            r && (r.status === 'PENDING' ? payout(w, r, m, [{ value: r.escrowValue, scriptPubKey: partyById(r.requester).script }]) : payout(w, r, m))
          );
      }
    },
  },
];

// ---- the run ----

const seen = new Map<string, number>();
const count = (reason: string) => seen.set(reason, (seen.get(reason) ?? 0) + 1);

test(`generated OPoI histories against a reference model (seed ${SEED}, ${STEPS} steps)`, async () => {
  const h = await openHarness();
  let step = -1;
  try {
    await run(h, (s) => {
      step = s;
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`OPoI history failed at step ${step} (SEED = ${SEED}, STEPS = ${STEPS}): ${message}`, { cause: e });
  } finally {
    await h.close();
  }
});

async function run(h: Harness, atStep: (s: number) => void): Promise<void> {
  // Setup: four coinbases to a bank key, matured, then split among the parties in one block (the root).
  const bank = new TestKey(sha256(Buffer.from(`opoi-history ${SEED} bank`)));
  const bankScript = p2wpkhScript(hash160(bank.pub));
  const bankCoins: Transaction[] = [];
  for (let i = 0; i < 103; i++) {
    const block = nextBlock(h.chain, { payTo: i < 4 ? bankScript : undefined });
    assert.deepEqual(await h.chain.processBlock(block), { status: 'accepted', entry: h.chain.tip });
    if (i < 4) bankCoins.push(block.txs[0]);
  }
  const outputs = PARTIES.flatMap((p) =>
    // 1.5 coins each: enough for anyone (requesters too) to stake the minimum.
    Array.from({ length: 4 }, () => ({ value: (3n * COIN) / 2n, scriptPubKey: p.script })),
  );
  let funding = new Transaction({
    version: 2,
    inputs: bankCoins.map((cb) => ({ prevout: { txid: cb.txid, vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] })),
    outputs,
    locktime: 0,
  });
  bankCoins.forEach((cb, i) => {
    funding = bank.signInput(funding, i, cb.outputs[0].value);
  });
  const rootBlock = nextBlock(h.chain, { txs: [funding] });
  assert.deepEqual(await h.chain.processBlock(rootBlock), { status: 'accepted', entry: h.chain.tip });
  const rootModel: Model = { requests: new Map(), commits: new Map(), secrets: new Map(), stakes: new Map(), manifests: new Map(), coins: new Map() };
  outputs.forEach((o, vout) => {
    const key = coinKey(funding.txidHex, vout);
    rootModel.coins.set(key, { key, txid: funding.txid, vout, value: o.value, owner: partyByScript(o.scriptPubKey), escrowOf: null });
  });
  const root: GenBlock = {
    hash: rootBlock.header.hashHex,
    hashBytes: rootBlock.header.hash,
    parent: null,
    height: h.chain.height,
    txs: [],
    coinbaseFault: false,
    expect: null,
    state: rootModel,
  };

  /** Every block offered and expected valid (whether connected or not). */
  const blocks = new Map<string, GenBlock>([[root.hash, root]]);
  /** Blocks the chain rejected, as expected. */
  const bad = new Set<string>();
  /** Blocks invalidated by invalidateblock and not reconsidered since. */
  const invalidated = new Set<string>();
  const digests = new Map<string, string>();

  const path = (b: GenBlock) => {
    const out: GenBlock[] = [];
    for (let x: GenBlock | null = b; x; x = x.parent) out.push(x);
    return out;
  };
  const tipGen = () => {
    const b = blocks.get(h.chain.tip.hashHex);
    assert.ok(b, `the chain's tip ${h.chain.tip.hashHex} at ${h.chain.height} is a block of this history`);
    return b;
  };
  /** The most-work blocks the chain may end on (all blocks have equal work on regtest). */
  const bestTips = () => {
    const live = [...blocks.values()].filter((b) => path(b).every((x) => !invalidated.has(x.hash)));
    const top = Math.max(...live.map((b) => b.height));
    return live.filter((b) => b.height === top);
  };

  /** Builds a block on `parent`: valid, or breaking the rule of one breaker. */
  const makeBlock = (parent: GenBlock, invalid: boolean): { block: Block; gen: GenBlock } => {
    const height = parent.height + 1;
    let w = copy(stateAfter(parent));
    const txs: GenTx[] = [];
    const take = (g: GenTx | GenTx[] | null): string | null => {
      const list = g === null ? [] : Array.isArray(g) ? g : [g];
      const next = copy(w);
      for (const [i, t] of list.entries()) {
        const reason = modelTx(next, t, height);
        if (reason !== null) return i === list.length - 1 ? reason : 'prefix';
      }
      if (list.length === 0) return 'none';
      w = next;
      txs.push(...list);
      return null;
    };
    for (const propose of proposers()) if (txs.length < 10) take(propose(w, height));
    let expect: string | null = null;
    let coinbaseFault = false;
    if (invalid) {
      const order = rng.shuffle([...BREAKERS]).sort((a, b) => (seen.get(a.reason) ?? 0) - (seen.get(b.reason) ?? 0));
      for (const breaker of order) {
        if (breaker.coinbase) {
          coinbaseFault = true;
          expect = breaker.reason;
          break;
        }
        const g = breaker.make!(w, height);
        if (g === null) continue;
        const list = Array.isArray(g) ? g : [g];
        const probe = copy(w);
        const reasons = list.map((t) => modelTx(probe, t, height));
        if (reasons.slice(0, -1).some((r) => r !== null)) continue;
        const reason = reasons[reasons.length - 1];
        if (reason === null) continue;
        if (breaker.reason !== 'noise') assert.equal(reason, breaker.reason, 'the breaker breaks the rule it names (model)');
        txs.push(...list);
        expect = reason;
        break;
      }
      assert.ok(expect !== null, 'some breaker found an occasion');
    }
    const block = nextBlock(h.chain, {
      prev: h.chain.entry(parent.hash)!,
      txs: txs.map((t) => t.tx),
      payTo: coinbaseFault ? escrowScript(rng.bytes(16)) : undefined,
    });
    const gen: GenBlock = { hash: block.header.hashHex, hashBytes: block.header.hash, parent, height, txs, coinbaseFault, expect };
    return { block, gen };
  };

  /** Offers a block; asserts the outcome its place and validity call for. */
  const offer = async ({ block, gen }: { block: Block; gen: GenBlock }) => {
    const before = h.chain.tip;
    const becomesBest = gen.height > before.height;
    const r = await h.chain.processBlock(block);
    const got = r.status === 'rejected' ? `rejected ${r.reason} (${r.debug})` : r.status;
    if (gen.expect === null) {
      assert.equal(got, becomesBest ? 'accepted' : 'inconclusive', `block at ${gen.height} with ${gen.txs.length} transactions`);
      blocks.set(gen.hash, gen);
      assert.equal(h.chain.tip.hashHex, becomesBest ? gen.hash : before.hashHex);
    } else {
      assert.ok(becomesBest);
      assert.equal(r.status === 'rejected' ? r.reason : got, gen.expect, `block at ${gen.height} breaking ${gen.expect}: ${got}`);
      count(gen.expect);
      bad.add(gen.hash);
    }
  };

  for (let s = 0; s < STEPS; s++) {
    atStep(s);
    const tip = tipGen();
    const roll = rng.next();
    if (s % 75 === 74) {
      // A restart: the state comes back from the database as it was.
      await h.reopen();
      count('restart');
    } else if (roll < 0.66) {
      await offer(makeBlock(tip, false));
    } else if (roll < 0.84) {
      await offer(makeBlock(tip, true));
      assert.equal(h.chain.tip.hashHex, tip.hash, 'a rejected block leaves the tip');
    } else if (roll < 0.92) {
      // A side branch from up to four blocks back that outgrows the active chain: the reorg
      // undoes the OPoI state of the blocks it leaves and applies the branch's. Now and then
      // its last block breaks a rule: the chain is then left on a valid tip of equal height.
      const depth = Math.min(rng.int(1, 4), tip.height - root.height);
      if (depth < 1) continue;
      let parent = path(tip)[depth];
      const lastInvalid = rng.chance(0.3);
      for (let i = 0; i <= depth; i++) {
        const made = makeBlock(parent, i === depth && lastInvalid);
        await offer(made);
        parent = made.gen;
      }
      count(lastInvalid ? 'reorg-to-invalid' : 'reorg');
    } else if (roll < 0.955) {
      const target = path(tip)[rng.int(0, 3)];
      if (!target || target.height <= root.height || invalidated.size >= 2) continue;
      await h.chain.invalidateBlock(target.hash);
      invalidated.add(target.hash);
      count('invalidateblock');
    } else {
      const target = rng.pickOr([...invalidated].map((x) => blocks.get(x)!));
      if (!target) continue;
      await h.chain.reconsiderBlock(target.hash);
      // reconsiderblock clears the marks of the block's ancestors and descendants too.
      for (const x of [...invalidated]) {
        const b = blocks.get(x)!;
        if (path(b).includes(target) || path(target).includes(b)) invalidated.delete(x);
      }
      count('reconsiderblock');
    }
    const now = tipGen();
    assert.ok(
      bestTips().includes(now),
      `the chain's tip (height ${now.height}) is one of the most-work valid blocks (height ${bestTips()[0].height})`,
    );
    compare(h, stateAfter(now), now);
    const digest = h.chain.opoi.digest();
    const earlier = digests.get(now.hash);
    if (earlier !== undefined) assert.equal(digest, earlier, 'the OPoI state digest at a tip seen before is the same');
    digests.set(now.hash, digest);
  }

  // The history must have been rich enough to mean something: every rule broken, every chain
  // operation made, every stake status and request outcome reached.
  const expected = [
    ...BREAKERS.map((b) => b.reason).filter((r) => r !== 'noise'),
    ...['reorg', 'reorg-to-invalid', 'invalidateblock', 'reconsiderblock', 'restart', 'collateral released', 'executor commit'],
    ...['manifest registered', 'stake serving a manifest'],
    ...['stake ACTIVE', 'stake SUSPENDED', 'stake UNSTAKING', 'stake UNSTAKED', 'request FULFILLED paid', 'request EXPIRED paid'],
  ];
  const missing = expected.filter((r) => !seen.has(r));
  assert.deepEqual(missing, [], `not reached with this seed: ${JSON.stringify(Object.fromEntries(seen))}`);
}

/** The chain's OPoI state against the model's, record by record, through every read the store offers. */
function compare(h: Harness, m: Model, tip: GenBlock): void {
  const o = h.chain.opoi;
  const sorted = <T>(xs: Iterable<T>, key: (x: T) => string) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const at = `at height ${tip.height}`;
  assert.deepEqual(
    sorted(o.requests(), (r) => r.id),
    sorted(m.requests.values(), (r) => r.id),
    `requests ${at}`,
  );
  assert.deepEqual(
    sorted(o.commits(), (c) => c.requestId + c.miner),
    sorted(m.commits.values(), (c) => c.requestId + c.miner),
    `commits ${at}`,
  );
  assert.deepEqual(
    sorted(o.stakes(), (s) => s.miner),
    sorted(m.stakes.values(), (s) => s.miner),
    `stakes ${at}`,
  );
  for (const r of m.requests.values()) {
    assert.deepEqual(o.request(r.id), r);
    const commits = o.commitsOf(r.id);
    assert.deepEqual([commits.length, commits.filter((c) => c.reveal !== null).length], [r.commits, r.reveals], `commit counts of ${r.id} ${at}`);
    // The escrow coin is unspent exactly until the payout.
    assert.equal(h.chain.getCoin({ txid: hashFromHex(r.txid), vout: 0 }) !== undefined, r.payoutTxid === null, `escrow of ${r.id} ${at}`);
    count(`request ${r.status}${r.payoutTxid === null ? '' : ' paid'}`);
  }
  for (const s of m.stakes.values()) {
    const stored = o.stake(s.miner)!;
    assert.deepEqual(stored, s);
    assert.equal(stakeStatus(stored, tip.height + 1, P), status(s, tip.height + 1), `stake status of ${s.miner} ${at}`);
    count(`stake ${status(s, tip.height + 1)}`);
    assert.equal(o.collateralOwner(hashFromHex(s.collateralTxid), s.collateralVout), s.miner);
  }
  for (const miner of MINERS) if (!m.stakes.has(miner.id)) assert.equal(o.stake(miner.id), undefined);
  assert.deepEqual(
    sorted(o.manifests(), (x) => x.modelId),
    sorted(m.manifests.values(), (x) => x.modelId),
    `manifests ${at}`,
  );
  for (const x of m.manifests.values()) {
    assert.deepEqual(o.manifest(x.modelId), x);
    count('manifest registered');
  }
  for (const id of MANIFEST_IDS) if (!m.manifests.has(id)) assert.equal(o.manifest(id), undefined, `no manifest ${id} ${at}`);
  for (const s of m.stakes.values()) if (s.serves.length > 0) count('stake serving a manifest');
  for (const c of m.coins.values()) assert.equal(h.chain.getCoin({ txid: c.txid, vout: c.vout })?.value, c.value, `coin ${c.key} ${at}`);
}
