// Blocks the pool finds that the node does not keep on its active chain, against real csd and
// cs-pool processes. Two blocks of one height found together (as issue 34 saw: two in the same
// second): the node keeps one on its active chain and stores the other on a side branch; both
// are recorded, and when a block on the loser makes its branch the longer one, the loser is
// credited (once), the winner's credits are withdrawn, and at maturity the loser is paid and the
// winner orphaned. A block reorganized away at once is listed, orphaned at maturity, never paid.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Block, BlockHeader, REGTEST, compactToTarget, fromHex, toHex } from '@cs/consensus';
import { assembleBlock, coinbaseTx, mine, withWitnessCommitment } from '../../consensus/test/blocks.ts';
import type { Daemon } from '../../csd/test/daemon.ts';
import { type ModelShare, modelPplns } from './payout-model.ts';
import { PoolProcess, blockWith, eventually, externalAddress, jobOnTip, receivedTotal, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
const other = externalAddress();
const clients: StratumClient[] = [];

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, ['-scheme=pplns', '-fee=1', '-minpayout=0.1']);
  await pool.start();
});

after(async () => {
  for (const c of clients) c.close();
  await pool?.cleanup();
  await node?.cleanup();
});

interface ApiUser {
  balance: { immature: number; pending: number; paid: number };
}

async function miner(address: string, difficulty: string): Promise<StratumClient> {
  const c = await StratumClient.connect(pool.ports!.plain);
  clients.push(c);
  await c.subscribe();
  assert.equal((await c.authorize(`${address}.rig`, `d=${difficulty}`)).result, true);
  return c;
}

const onTip = (c: StratumClient) => jobOnTip(node, c);

/** A block of the test's own (its coinbase pays nothing) on `parent`, mined here. */
async function blockOn(parent: string, height: number): Promise<Block> {
  const header = BlockHeader.decode(fromHex(await node.call<string>('getblockheader', parent, false)));
  return mine(assembleBlock(withWitnessCommitment([coinbaseTx(height, 0n)]), { prevHash: header.hash, time: header.time + 1 }), REGTEST);
}

const submit = (block: Block) => node.call<string | null>('submitblock', toHex(block.encode()));
const balance = async (address: string) => (await pool.api<ApiUser>(`/api/user/${address}`)).balance;
const logLines = (hash: string) => pool.output.split('\n').filter((l) => l.includes(hash));
const credits = (hash: string) => logLines(hash).filter((l) => l.includes('"block credited"')).length;

/** Mines to an outside address until the pool's payment for `address` is confirmed (the wallet spends a coinbase at 101). */
async function paidOut(address: string): Promise<void> {
  await eventually(async () => {
    const p = await pool.api<{ status: string; amounts: Record<string, number> }[]>('/api/payments');
    if (p.some((x) => x.status === 'confirmed' && address in x.amounts)) return true;
    await node.call('generatetoaddress', 1, other);
    return undefined;
  }, 'the payment confirmed');
}

test('a block that loses a same-height race and then wins by a reorg is credited exactly once', async () => {
  const [a, b] = [externalAddress(), externalAddress()];
  const ca = await miner(a, '0.1');
  const cb = await miner(b, '0.5');
  const sent: ModelShare[] = [];
  for (const [c, address] of [
    [ca, a],
    [ca, a],
    [cb, b],
  ] as const) {
    await onTip(c);
    assert.deepEqual(await c.submit(c.solve(REGTEST.equihash, false, `${address}.rig`).params), { result: true, error: null });
    sent.push({ address, target: c.target });
  }
  // Two blocks of one job in one write: the pool checks both against that job before it can hear
  // of either on the chain, and submits both; the node takes the first it processes.
  const parent = await onTip(cb);
  const height = (await node.call<number>('getblockcount')) + 1;
  const found = [cb.solve(REGTEST.equihash, true, `${b}.rig`), cb.solve(REGTEST.equihash, true, `${b}.rig`)];
  const replies = await Promise.all(cb.sendEncoded(cb.encodeRequests('mining.submit', [found[0].params, found[1].params])));
  assert.deepEqual(replies, [
    { result: true, error: null },
    { result: true, error: null },
  ]);
  const hashes = found.map((s) => s.hash.toString(16).padStart(64, '0'));
  const shares = [...sent, { address: b, target: cb.target }, { address: b, target: cb.target }];
  const winnerHash = await eventually(async () => {
    const best = await node.call<string>('getbestblockhash');
    return hashes.includes(best) ? best : undefined;
  }, 'one of the two blocks on the chain');
  const [winner, loser] = winnerHash === hashes[0] ? [0, 1] : [1, 0];

  const credited = await blockWith(pool, hashes[winner], 'pending');
  const lost = await blockWith(pool, hashes[loser], 'side');
  assert.equal(lost.height, height);
  assert.deepEqual(lost.credits, {}, 'a block on a side branch is not credited');
  assert.ok(
    logLines(hashes[loser]).some((l) => l.includes('recorded as side') && l.includes('"answer":"inconclusive"')),
    'recorded at submission, as csd answered: stored on a side branch',
  );
  assert.equal((await balance(b)).immature, credited.credits[b], "only the winner's credits count");

  // A block on the loser makes its branch the longer one: csd reorganizes to it.
  assert.equal(await submit(await blockOn(hashes[loser], height + 1)), null);
  const won = await blockWith(pool, hashes[loser], 'pending');
  await blockWith(pool, hashes[winner], 'side');
  const block = { reward: BigInt(won.reward), feeBasisPoints: 100, powLimit: REGTEST.powLimit };
  const { bits } = await node.call<{ bits: string }>('getblock', hashes[loser], 1);
  const networkTarget = compactToTarget(Number.parseInt(bits, 16)).target;
  // Its PPLNS window ends at its own share: the other block's share counts only if it came first.
  const expected = modelPplns(block, shares.slice(0, sent.length + loser + 1), networkTarget, [2n, 1n]);
  assert.deepEqual(won.credits, expected);
  assert.deepEqual(await balance(a), { immature: expected[a], pending: 0, paid: 0 }, 'the reorganized block was withdrawn');
  assert.deepEqual(await balance(b), { immature: expected[b], pending: 0, paid: 0 });
  assert.equal((await node.call<{ previousblockhash: string }>('getblock', hashes[loser], 1)).previousblockhash, parent);

  // Maturity: the loser-turned-winner is paid, once; the block reorganized away is orphaned.
  await node.call('generatetoaddress', 100, other);
  await paidOut(a);
  await blockWith(pool, hashes[loser], 'confirmed');
  assert.deepEqual((await blockWith(pool, hashes[winner], 'orphaned')).credits, {});
  assert.deepEqual(await balance(a), { immature: 0, pending: 0, paid: expected[a] });
  assert.deepEqual(await balance(b), { immature: 0, pending: 0, paid: expected[b] });
  assert.equal(await receivedTotal(node, a), expected[a]);
  assert.equal(await receivedTotal(node, b), expected[b]);
  assert.equal(credits(hashes[loser]), 1, 'credited exactly once');
});

test('a block reorganized away at once is listed as orphaned and never paid', async () => {
  const z = externalAddress();
  const cz = await miner(z, '0.1');
  const parent = await onTip(cz);
  const height = (await node.call<number>('getblockcount')) + 1;
  const s = cz.solve(REGTEST.equihash, true, `${z}.rig`);
  const hash = s.hash.toString(16).padStart(64, '0');
  assert.deepEqual(await cz.submit(s.params), { result: true, error: null });
  // At once, while the pool submits it: a longer branch of two blocks from its parent. Whether the
  // node sees the pool's block before or after that branch, it ends up off the active chain.
  const first = await blockOn(parent, height);
  // Inconclusive when the pool's block came first (a side branch of the same height), else null.
  assert.ok([null, 'inconclusive'].includes(await submit(first)));
  assert.equal(await submit(await blockOn(first.header.hashHex, height + 1)), null, 'the longer branch is the active chain');

  const side = await blockWith(pool, hash, 'side');
  assert.equal(side.height, height);
  assert.deepEqual(side.credits, {});
  assert.deepEqual(await balance(z), { immature: 0, pending: 0, paid: 0 });

  // Once a block at its height would be mature, nothing can bring it back in time: orphaned.
  await node.call('generatetoaddress', 98, other);
  const orphaned = await blockWith(pool, hash, 'orphaned');
  assert.deepEqual(orphaned.credits, {});
  await node.call('generatetoaddress', 5, other);
  assert.deepEqual(await balance(z), { immature: 0, pending: 0, paid: 0 });
  assert.equal(await receivedTotal(node, z), 0);
});
