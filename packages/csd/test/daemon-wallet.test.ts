// The wallet's acceptance tests on real csd processes: two nodes, each with its own data
// directory and wallet. csd has no P2P yet, so the second node follows the first by having the
// first node's blocks submitted to it (submitblock), as a peer would relay them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, RpcCallError } from './daemon.ts';

type Json = Record<string, unknown>;
interface Balances {
  mine: { trusted: number; untrusted_pending: number; immature: number };
}

// Syncing blocks by RPC takes far more than the default 100 calls a minute.
const ARGS = ['-fallbackfee=0.0002', '-rpcratelimit=0'];
const coins = (n: number) => Math.round(n * 1e8);

/** Submits to `to` every block of `from`'s active chain that `to` lacks, from their fork on. */
async function sync(from: Daemon, to: Daemon): Promise<void> {
  let fork = Math.min(await from.call<number>('getblockcount'), await to.call<number>('getblockcount'));
  while (fork > 0 && (await from.call('getblockhash', fork)) !== (await to.call('getblockhash', fork))) fork--;
  const tip = await from.call<number>('getblockcount');
  for (let h = fork + 1; h <= tip; h++) {
    const hex = await from.call<string>('getblock', await from.call<string>('getblockhash', h), 0);
    const r = await to.call<string | null>('submitblock', hex);
    assert.ok(r === null || r === 'inconclusive' || r === 'duplicate', `submitblock at ${h}: ${r}`);
  }
  assert.equal(await to.call('getbestblockhash'), await from.call('getbestblockhash'));
}

async function rejects(p: Promise<unknown>, code: number): Promise<RpcCallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) {
      assert.equal(e.code, code, e.message);
      return e;
    }
    throw e;
  }
  throw new Error(`expected RPC error ${code}`);
}

test('two wallets on real nodes: mining, sends, imports, encryption, locks, kill -9 and a reorg', async () => {
  const a = new Daemon({ args: ARGS });
  const b = new Daemon({ args: ARGS });
  try {
    await a.start();
    await b.start();

    // Mine to a wallet address of A: after 110 blocks the first ten coinbases are mature.
    const miner = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 110, miner);
    assert.equal(await a.call('getbalance'), 125);
    await sync(a, b);

    // sendtoaddress and sendmany to addresses of B, confirmed in a block B receives.
    const [b1, b2, b3] = [
      await b.call<string>('getnewaddress'),
      await b.call<string>('getnewaddress'),
      await b.call<string>('getnewaddress', '', 'legacy'),
    ];
    const sent1 = await a.call<string>('sendtoaddress', b1, 10);
    const sent2 = await a.call<string>('sendmany', '', { [b2]: 1, [b3]: 2.5 });
    const fees = -(await a.call<{ fee: number }>('gettransaction', sent1)).fee - (await a.call<{ fee: number }>('gettransaction', sent2)).fee;
    await a.call('generatetoaddress', 1, await a.call<string>('getnewaddress'));
    await sync(a, b);
    assert.equal(await b.call('getbalance'), 13.5);
    assert.deepEqual((await b.call<Balances>('getbalances')).mine, { trusted: 13.5, untrusted_pending: 0, immature: 0 });
    assert.equal((await b.call<Json>('gettransaction', sent1)).confirmations, 1);
    // A paid 13.5 and the fees; a coinbase matured with the new block.
    assert.equal(coins(await a.call<number>('getbalance')), coins(125 + 12.5 - 13.5) - coins(fees));

    // Errors with Core's codes.
    await rejects(a.call('sendtoaddress', b1, 10_000), -6);
    await rejects(a.call('sendtoaddress', 'csrt1qnotanaddress', 1), -5);

    // importprivkey of a key holding coins: B finds A's mining coins after the rescan.
    const minerKey = await a.call<string>('dumpprivkey', miner);
    await b.call('importprivkey', minerKey, 'miner', true);
    const outpoints = async (d: Daemon) =>
      (await d.call<{ txid: string; vout: number }[]>('listunspent', 1, 9999999, [miner])).map((u) => `${u.txid}:${u.vout}`).sort();
    const found = await outpoints(b);
    assert.ok(found.length > 0);
    assert.deepEqual(found, await outpoints(a));

    // Encrypt, lock, fail to send, unlock, send.
    await a.call('encryptwallet', 'a long passphrase');
    await rejects(a.call('sendtoaddress', b1, 1), -13);
    await rejects(a.call('walletpassphrase', 'wrong', 60), -14);
    await a.call('walletpassphrase', 'a long passphrase', 600);
    const sent3 = await a.call<string>('sendtoaddress', b1, 1);
    assert.ok((await a.call<string[]>('getrawmempool')).includes(sent3));

    // A locked coin stays out of coin selection and stays locked across a restart.
    const [coin] = await b.call<Json[]>('listunspent', 1, 9999999, [b1]);
    await b.call('lockunspent', false, [{ txid: coin.txid, vout: coin.vout }]);
    await b.stop();
    await b.start();
    assert.deepEqual(await b.call('listlockunspent'), [{ txid: coin.txid, vout: coin.vout }]);
    assert.ok(!(await b.call<Json[]>('listunspent')).some((u) => u.txid === coin.txid && u.vout === coin.vout));

    // kill -9 right after getnewaddress: the address stays the wallet's and is not handed out again.
    const fresh = await a.call<string>('getnewaddress');
    await a.kill('SIGKILL');
    await a.start();
    assert.equal((await a.call<Json>('getaddressinfo', fresh)).ismine, true);
    assert.notEqual(await a.call<string>('getnewaddress'), fresh);

    // kill -9 right after sendtoaddress: the transaction is kept and offered to the mempool again,
    // and a later send does not spend its coins a second time.
    await a.call('walletpassphrase', 'a long passphrase', 600);
    const beforeKill = await a.call<string>('sendtoaddress', b2, 2);
    await a.kill('SIGKILL');
    await a.start();
    assert.ok((await a.call<string[]>('getrawmempool')).includes(beforeKill));
    await a.call('walletpassphrase', 'a long passphrase', 600);
    const afterKill = await a.call<string>('sendtoaddress', b2, 3);
    await a.call('generatetoaddress', 1, miner);
    assert.equal((await a.call<Json>('gettransaction', beforeKill)).confirmations, 1);
    assert.equal((await a.call<Json>('gettransaction', afterKill)).confirmations, 1);
    await sync(a, b);

    // A reorg that removes a received payment: A pays B, the block reaches B, then A replaces
    // that block with a branch where the payment's coins went elsewhere.
    const paid = await a.call<string>('sendtoaddress', b1, 4);
    const [paidIn] = await a.call<string[]>('generatetoaddress', 1, miner);
    await sync(a, b);
    // Coinbases maturing as the chain grows change B's balance too (it imported the miner's key): count b1's coins only.
    const atB1 = async () =>
      (await b.call<{ txid: string; amount: number }[]>('listunspent', 0, 9999999, [b1])).reduce((s, u) => s + coins(u.amount), 0);
    const before = await atB1();
    assert.equal((await b.call<Json>('gettransaction', paid)).confirmations, 1);
    await a.call('invalidateblock', paidIn);
    const paidTx = await a.call<{ vin: { txid: string; vout: number }[]; vout: { value: number }[] }>(
      'decoderawtransaction',
      (await a.call<Json>('gettransaction', paid)).hex,
    );
    const total = paidTx.vout.reduce((s, o) => s + coins(o.value), 0);
    const raw = await a.call<string>(
      'createrawtransaction',
      paidTx.vin.map((i) => ({ txid: i.txid, vout: i.vout })),
      { [miner]: (total - 100_000) / 1e8 },
    );
    const doubleSpend = await a.call<{ hex: string }>('signrawtransactionwithwallet', raw);
    await a.call('sendrawtransaction', doubleSpend.hex);
    await a.call('generatetoaddress', 2, miner);
    await sync(a, b);
    const gone = await b.call<Json>('gettransaction', paid);
    assert.ok((gone.confirmations as number) < 0, `confirmations ${gone.confirmations}`);
    assert.equal(await atB1(), before - coins(4));
    assert.ok(!(await b.call<{ txid: string }[]>('listunspent', 0)).some((u) => u.txid === paid));
  } finally {
    await a.cleanup();
    await b.cleanup();
  }
});

test('-disablewallet runs without a wallet: wallet methods are unknown, key signing remains', async () => {
  const d = new Daemon({ args: ['-disablewallet'] });
  try {
    await d.start();
    await rejects(d.call('getnewaddress'), -32601);
    await rejects(d.call('signrawtransactionwithkey', '00', []), -22);
  } finally {
    await d.cleanup();
  }
});
