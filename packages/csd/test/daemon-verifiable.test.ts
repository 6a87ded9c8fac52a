// VERIFIABLE requests on real csd processes, every step driven over RPC: a requester and the
// manifest's registrant on node A, the executor's wallet on node B, the auditors' on node C.
// A false answer is caught (refund, forfeit); an honest one survives a challenge (paid, with the
// bond shared). Amounts are checked to the base unit against the scheme of docs/protocol.md,
// computed here on its own; the OPoI state digest is checked on every node across reorgs, a
// restart, a kill -9 and a -reindex at each new step.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { toHex, verifiableResponseHash } from '@cs/consensus';
import { Daemon } from './daemon.ts';
import { type Json, Net, restartKillReindex, rpcError } from './daemon-net.ts';

const ARGS = ['-fallbackfee=0.0002', '-rpcratelimit=0'];
const sats = (coins: number) => Math.round(coins * 1e8);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// Regtest's OPoI parameters (packages/consensus/src/params/networks.ts).
const COMMIT_WINDOW = 4;
const REVEAL_WINDOW = 4;
const MIN_STAKE = 100_000_000;

const MANIFEST = 'tiny-test-q8';
const PAYMENT = 0.01;
const FEE_PER_TOKEN = 0.0001;
const MAX_TOKENS = 8;
const AUDIT_FEE = 0.001;
const BOND = 0.5;

interface World {
  readonly net: Net;
  readonly a: Daemon;
  readonly b: Daemon;
  readonly c: Daemon;
  readonly requester: string;
  readonly challenger: string;
  readonly executor: string;
  readonly auditors: string[];
}

/** Three nodes; a registered manifest; the executor and `auditorCount` auditors staked, serving it. */
async function world(auditorCount: number): Promise<World> {
  const [a, b, c] = [new Daemon({ args: ARGS }), new Daemon({ args: ARGS }), new Daemon({ args: ARGS })];
  await Promise.all([a.start(), b.start(), c.start()]);
  const payTo = await a.call<string>('getnewaddress');
  const net = new Net([a, b, c], payTo);
  await a.call('generatetoaddress', 110, payTo);
  await net.syncBlocks();
  const requester = await a.call<string>('getnewaddress');
  const challenger = await a.call<string>('getnewaddress');
  const executor = await b.call<string>('getnewaddress');
  const auditors: string[] = [];
  for (let i = 0; i < auditorCount; i++) auditors.push(await c.call<string>('getnewaddress'));
  // One sendmany per round: a later send of A's wallet could spend an unconfirmed coin it paid to
  // one of its own addresses. Every staker gets a coin to stake from and one to pay for its actions.
  const stakers = [executor, ...auditors];
  await a.call('sendmany', '', Object.fromEntries([requester, challenger, ...stakers].map((to) => [to, 2])));
  await net.mine();
  await a.call('sendmany', '', Object.fromEntries(stakers.map((to) => [to, 2])));
  await net.mine();
  await a.call('registermodelmanifest', MANIFEST, sha256('the tiny GGUF'), 123_456, 4096, requester);
  await net.mine();
  for (const [node, staker] of [[b, executor] as const, ...auditors.map((x) => [c, x] as const)]) {
    const [coin] = await node.call<Json[]>('listunspent', 1, 9999999, [staker]);
    await node.call('stakeopoi', staker, coin.txid, coin.vout, MANIFEST, '', [MANIFEST]);
  }
  await net.mine();
  return { net, a, b, c, requester, challenger, executor, auditors };
}

interface Answer {
  readonly id: string;
  readonly prompt: string;
  readonly tokens: number[];
  readonly text: string;
  readonly requestHeight: number;
  readonly publishHeight: number;
}

/** A VERIFIABLE request bound to the executor, answered with `tokens`/`text` and published. */
async function answered(w: World, quorum: number, tokens: number[], text: string): Promise<Answer> {
  const { net, a, b } = w;
  const id = randomUUID();
  const prompt = 'What is the capital of France?';
  const args = [id, MANIFEST, sha256(prompt), MAX_TOKENS, PAYMENT, w.requester, FEE_PER_TOKEN, 'VERIFIABLE', 0, '', w.executor];
  await rpcError(a.call('submitopoirequest', ...args, MAX_TOKENS, AUDIT_FEE), -8, /fewer than audit_quorum 8/);
  await a.call('submitopoirequest', ...args, quorum, AUDIT_FEE);
  const requestHeight = await net.mine();
  const hash = toHex(verifiableResponseHash(tokens, Buffer.from(text)));
  const commit = await b.call<Json>('submitopoiresponsecommit', id, hash, w.executor, null, tokens.length);
  const commitHeight = await net.mine();
  await net.mineTo(commitHeight + COMMIT_WINDOW - 1);
  await b.call('submitopoiresponse', id, hash, w.executor, commit.commitment, tokens.length, commit.nonce_hex);
  await net.mineTo(commitHeight + COMMIT_WINDOW + REVEAL_WINDOW - 1);
  assert.equal((await a.call<Json>('getopoirequest', id)).status, 'PUBLISHING');
  // The published text must be what was revealed: another one is refused.
  await rpcError(a.call('publishopoianswer', id, prompt, `${text}!`, tokens), -8, /do not hash to the winner's revealed response hash/);
  await a.call('publishopoianswer', id, prompt, text, tokens);
  const publishHeight = await net.mine();
  assert.equal((await a.call<Json>('getopoirequest', id)).status, 'AUDITING');
  return { id, prompt, tokens, text, requestHeight, publishHeight };
}

/** The auditors drawn for a request so far, by round, as getopoiaudit names them. */
async function drawn(w: World, id: string): Promise<{ address: string; round: number }[]> {
  const audit = await w.a.call<Json>('getopoiaudit', id);
  return (audit.auditors as Json[]).map((x) => ({ address: x.address as string, round: x.round as number }));
}

/** Every drawn auditor commits `verdict`, then reveals it once the commit window has closed. */
async function verdicts(w: World, id: string, verdict: 'valid' | 'invalid'): Promise<{ commitHeight: number; revealHeight: number }> {
  const { net, c } = w;
  const salts = new Map<string, string>();
  for (const { address } of await drawn(w, id)) {
    salts.set(address, (await c.call<Json>('submitopoiverdictcommit', id, address, verdict)).salt_hex as string);
  }
  const commitHeight = await net.mine();
  const audit = await w.a.call<Json>('getopoiaudit', id);
  await rpcError(c.call('submitopoiverdict', id, [...salts.keys()][0], verdict, [...salts.values()][0]), -26, /bad-opoi-verdict-early/);
  await net.mineTo(audit.commit_close as number);
  for (const [address, salt] of salts) await c.call('submitopoiverdict', id, address, verdict, salt);
  const revealHeight = await net.mine();
  await net.mineTo(audit.reveal_deadline as number);
  return { commitHeight, revealHeight };
}

/** The payout's outputs as [address or "burn", base units]. */
async function payoutOf(w: World, id: string): Promise<{ height: number; outputs: [string, number][] }> {
  const paid = await w.a.call<Json>('claimopoipayout', id);
  const height = await w.net.mine();
  const tx = await w.a.call<Json>('getrawtransaction', paid.txid, true);
  const outputs = (tx.vout as Json[]).map((o): [string, number] => {
    const script = o.scriptPubKey as Json;
    return [script.hex === '6a' ? 'burn' : (script.address as string), sats(o.value as number)];
  });
  return { height, outputs };
}

/** Invalidating each height restores the digest before it, reconsidering restores the tip's; then restart, kill -9, -reindex. */
async function survives(w: World, heights: number[]): Promise<void> {
  const { net, a } = w;
  const final = (await a.call<Json>('getopoistats')).state_digest as string;
  const tip = await a.call<number>('getblockcount');
  await net.assertDigests(final, 'at the tip');
  for (const h of heights) {
    const hash = await a.call<string>('getblockhash', h);
    await a.call('invalidateblock', hash);
    assert.equal((await a.call<Json>('getopoistats')).state_digest, net.digests.get(h - 1), `state after invalidating height ${h}`);
    await a.call('reconsiderblock', hash);
    assert.equal((await a.call<Json>('getopoistats')).state_digest, final, `state after reconsidering height ${h}`);
  }
  await restartKillReindex(a, tip, (when) => net.assertDigests(final, when));
}

test('a false VERIFIABLE answer: the drawn auditors say invalid, the requester is refunded and the collateral forfeited, exact to the base unit', async () => {
  const w = await world(4);
  try {
    const quorum = 3;
    const answer = await answered(w, quorum, [17, 4, 99], ' Berlin.');
    await w.net.mine();
    const auditors = await drawn(w, answer.id);
    assert.equal(auditors.length, quorum);
    for (const x of auditors) assert.ok(w.auditors.includes(x.address), 'auditors are stakers serving the manifest, not the executor');
    await rpcError(w.b.call('submitopoiverdictcommit', answer.id, w.executor, 'valid'), -8, /was not drawn to audit/);
    const steps = await verdicts(w, answer.id, 'invalid');
    const request = await w.a.call<Json>('getopoirequest', answer.id);
    assert.equal(request.status, 'REJECTED');
    assert.equal((request.audit as Json).outcome, 'invalid');
    const outcomeHeight = await w.a.call<number>('getblockcount');
    assert.equal((await w.a.call<Json>('getopoistake', w.executor)).status, 'FORFEITED');
    // The forfeited collateral is the payout's to spend: not the executor's, even after UNSTAKE.
    await rpcError(w.b.call('unstakeopoi', w.executor), -8, /forfeited by request/);

    const { height: payoutHeight, outputs } = await payoutOf(w, answer.id);
    const escrow = sats(PAYMENT) + sats(FEE_PER_TOKEN) * MAX_TOKENS + quorum * sats(AUDIT_FEE);
    const perAuditor = Math.floor(MIN_STAKE / 2 / quorum);
    const toRequester = Math.floor(MIN_STAKE / 4);
    const expected: [string, number][] = [
      [w.requester, escrow + toRequester],
      ...auditors.map((x): [string, number] => [x.address, perAuditor]),
      ['burn', MIN_STAKE - quorum * perAuditor - toRequester],
    ];
    assert.deepEqual(outputs.slice(0, expected.length), expected);
    assert.equal(expected[expected.length - 1][1], 25_000_002);
    await rpcError(w.b.call('getopoistake', w.executor), -5);

    await survives(w, [answer.publishHeight, answer.publishHeight + 1, steps.commitHeight, steps.revealHeight, outcomeHeight, payoutHeight]);
  } finally {
    await Promise.all([w.a, w.b, w.c].map((d) => d.kill().catch(() => undefined)));
  }
});

test('an honest VERIFIABLE answer survives a challenge: the winner is paid and takes half the bond, the auditors their fees and the rest', async () => {
  const w = await world(4);
  try {
    const quorum = 1;
    const answer = await answered(w, quorum, [5, 6, 7, 8], ' Paris.');
    await w.net.mine();
    assert.equal((await drawn(w, answer.id)).length, quorum);
    await rpcError(w.a.call('submitopoichallenge', answer.id, w.challenger, 0.01), -8, /bond must be at least 0.5/);
    await w.a.call('submitopoichallenge', answer.id, w.challenger, BOND);
    const challengeHeight = await w.net.mine();
    await w.net.mine();
    const auditors = await drawn(w, answer.id);
    assert.deepEqual(
      auditors.map((x) => x.round),
      [0, 1, 1],
      'a challenge draws quorum + 1 more auditors',
    );
    await verdicts(w, answer.id, 'valid');
    const request = await w.a.call<Json>('getopoirequest', answer.id);
    assert.equal(request.status, 'FULFILLED');
    assert.equal((await w.a.call<Json>('getopoistake', w.executor)).status, 'ACTIVE');

    const { height: payoutHeight, outputs } = await payoutOf(w, answer.id);
    const winner = sats(PAYMENT) + sats(FEE_PER_TOKEN) * answer.tokens.length;
    const bondShare = Math.floor(sats(BOND) / 2 / auditors.length);
    const escrow = sats(PAYMENT) + sats(FEE_PER_TOKEN) * MAX_TOKENS + quorum * sats(AUDIT_FEE);
    const expected: [string, number][] = [
      [w.executor, winner + sats(BOND) - auditors.length * bondShare],
      ...auditors.map((x): [string, number] => [x.address, (x.round === 0 ? sats(AUDIT_FEE) : 0) + bondShare]),
      [w.requester, escrow - winner - quorum * sats(AUDIT_FEE)],
    ];
    assert.deepEqual(outputs.slice(0, expected.length), expected);

    await survives(w, [challengeHeight, challengeHeight + 1, payoutHeight]);
  } finally {
    await Promise.all([w.a, w.b, w.c].map((d) => d.kill().catch(() => undefined)));
  }
});
