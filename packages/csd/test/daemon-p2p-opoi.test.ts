// State that rides on the peer-to-peer network, between three csd processes in a line (a - b - c):
// published OPoI content reaches every node through relays that checked it, and when two
// partitions mined competing chains, the wallet, the transaction and address indexes and the
// OPoI state of the losing side follow the reorg to the most-work chain.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Daemon, RpcCallError } from './daemon.ts';
import { waitUntil } from './p2p-test-peer.ts';

type Json = Record<string, unknown>;

// Regtest's OPoI commit window (packages/consensus/src/params/networks.ts).
const COMMIT_WINDOW = 4;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const node = () => new Daemon({ args: ['-rpcratelimit=0', '-fallbackfee=0.0002', '-rest', '-restratelimit=0'] });
const tipOf = (d: Daemon) => d.call<string>('getbestblockhash');
const addr = (d: Daemon) => `127.0.0.1:${d.p2pPort}`;

/** The RPC error `p` fails with; fails the test if it succeeds or fails otherwise. */
async function rpcError(p: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof RpcCallError && e.code === code && message.test(e.message));
}

/** /rest/address/<address> of a node (the address index). */
async function addressActivity(d: Daemon, address: string): Promise<{ txApperances: number; unconfirmedTxApperances: number; balance: number }> {
  const res = await fetch(`http://127.0.0.1:${d.rpcPort}/rest/address/${address}.json`);
  assert.equal(res.status, 200, `/rest/address/${address}`);
  return (await res.json()) as { txApperances: number; unconfirmedTxApperances: number; balance: number };
}

describe('p2p network carrying wallet, index and OPoI state', { concurrency: false }, () => {
  const [a, b, c] = [node(), node(), node()];
  let miner = '';
  let staker = '';
  let requester = '';

  async function allAt(tip: string): Promise<void> {
    for (const d of [a, b, c]) await waitUntil(`${addr(d)} reaches ${tip}`, async () => (await tipOf(d)) === tip);
  }

  /** a mines `n` blocks with its mempool; returns when b and c have them. */
  async function mine(n = 1): Promise<number> {
    const hashes = await a.call<string[]>('generatetoaddress', n, miner);
    await allAt(hashes[hashes.length - 1]);
    return a.call<number>('getblockcount');
  }

  before(async () => {
    await a.start();
    await b.start([`-addnode=${addr(a)}`]);
    await c.start([`-addnode=${addr(b)}`]);
    miner = await a.call<string>('getnewaddress');
    staker = await a.call<string>('getnewaddress');
    requester = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 101, miner);
    // One transaction: a second send could spend the first one's output to the staker.
    await a.call('sendmany', '', { [staker]: 5, [requester]: 2 });
    await mine();
    const [coin] = await a.call<Json[]>('listunspent', 1, 9999999, [staker]);
    await a.call('stakeopoi', staker, coin.txid, coin.vout);
    await mine();
    assert.equal((await c.call<Json>('getopoistake', staker)).status, 'ACTIVE', 'the stake is known two hops away');
  });

  after(async () => {
    for (const d of [a, b, c]) await d.cleanup();
  });

  test('published OPoI content reaches every node, relayed by a node that checked it', async () => {
    const id = randomUUID();
    const answer = Buffer.from('The capital of France is Paris.');
    await a.call('submitopoirequest', id, 'tiny', sha256('What is the capital of France?'), 100, 0.01, requester);
    await mine();
    const commit = await a.call<Json>('submitopoiresponsecommit', id, sha256(answer), staker, null, 7);
    const commitHeight = await mine();
    await mine(commitHeight + COMMIT_WINDOW - 1 - (await a.call<number>('getblockcount')));
    await a.call('submitopoiresponse', id, sha256(answer), staker, commit.commitment, 7, commit.nonce_hex);
    await mine();
    for (const d of [a, b]) await rpcError(d.call('getopoicontent', id), -5, /No response content published/);

    // Published on c: b checks it against the revealed hash before passing it on to a.
    await c.call('submitopoicontent', id, 'RESPONSE', answer.toString('hex'));
    for (const d of [b, a]) {
      await waitUntil(`the content reaches ${addr(d)}`, async () => {
        try {
          return (await d.call<Json>('getopoicontent', id)).content_hex === answer.toString('hex');
        } catch (e) {
          if (e instanceof RpcCallError && e.code === -5) return false;
          throw e;
        }
      });
      const got = await d.call<Json>('getopoicontent', id);
      assert.equal(got.response_hash, sha256(answer), `response hash on ${addr(d)}`);
      assert.equal(got.miner, staker, `miner on ${addr(d)}`);
    }
    // c's own peer is b only: every copy came over the network.
    assert.equal(await c.call('getconnectioncount'), 1);
    assert.equal(await a.call('getconnectioncount'), 1);
  });

  test('two partitions mine competing chains; wallet, indexes and OPoI state follow the reorg to the most-work chain', async () => {
    await c.call('addnode', addr(b), 'remove');
    await c.call('disconnectnode', addr(b));
    await waitUntil('c is alone', async () => (await c.call<number>('getconnectioncount')) === 0);

    // a's side (a and b): a wallet payment and an OPoI request, confirmed in 2 blocks.
    const id = randomUUID();
    const request = await a.call<Json>('submitopoirequest', id, 'tiny', sha256('a question asked in a partition'), 100, 0.01, requester);
    const dest = await a.call<string>('getnewaddress');
    const paid = await a.call<string>('sendtoaddress', dest, 1);
    const aBranch = await a.call<string[]>('generatetoaddress', 2, miner);
    await waitUntil('b follows a', async () => (await tipOf(b)) === aBranch[1]);
    const coinbase = ((await a.call<Json>('getblock', aBranch[0])).tx as string[])[0];
    assert.equal((await a.call<Json>('gettransaction', paid)).confirmations, 2);
    assert.equal((await a.call<Json>('getrawtransaction', coinbase, true)).blockhash, aBranch[0]);
    assert.equal((await addressActivity(a, dest)).txApperances, 1);
    assert.equal((await b.call<Json>('getopoirequest', id)).status, 'PENDING');
    const aDigest = (await a.call<Json>('getopoistats')).state_digest;

    // c mines 5 blocks alone: more work.
    const cBranch = await c.call<string[]>('generatetoaddress', 5, await c.call<string>('getnewaddress'));
    const cDigest = (await c.call<Json>('getopoistats')).state_digest;
    assert.notEqual(aDigest, cDigest, 'the partitions have different OPoI states');
    await c.call('addnode', addr(b), 'onetry');
    await allAt(cBranch[4]);

    const tips = await a.call<{ status: string; branchlen: number }[]>('getchaintips');
    assert.ok(
      tips.some((t) => t.status === 'valid-fork' && t.branchlen === 2),
      "a's own branch is kept as a valid fork",
    );
    for (const d of [a, b]) {
      // OPoI: the request is no longer on-chain and the state is c's.
      await rpcError(d.call('getopoirequest', id), -5, /not found on-chain/);
      assert.equal((await d.call<Json>('getopoistats')).state_digest, cDigest, `OPoI state of ${addr(d)}`);
    }
    // Wallet: the payment is unconfirmed again and back in the mempool, with the request.
    const tx = await a.call<Json>('gettransaction', paid);
    assert.equal(tx.confirmations, 0);
    assert.equal(tx.blockhash, undefined);
    const mempool = await a.call<string[]>('getrawmempool');
    assert.ok(mempool.includes(paid) && mempool.includes(request.txid as string), 'the disconnected transactions are back in the mempool');
    // Indexes: the disconnected coinbase is gone from the transaction index, the payment is the
    // address's unconfirmed activity only.
    await rpcError(a.call('getrawtransaction', coinbase, true), -5, /No such mempool or blockchain transaction/);
    const activity = await addressActivity(a, dest);
    assert.equal(activity.txApperances, 0);
    assert.equal(activity.unconfirmedTxApperances, 1);
    assert.equal(activity.balance, 0);
  });
});
