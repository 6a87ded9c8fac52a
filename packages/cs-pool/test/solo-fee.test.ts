// SOLO with a solo fee, against real csd: -scheme=solo makes every login solo, -solofee=2.5 takes
// 2.5 % of a solo block's reward as a second coinbase output to the pool (the default, 0, pays the
// finder the whole reward: prop-solo-crash.test.ts), -fee (the PPLNS/PROP fee) plays no part, and
// at maturity the finder's credit is shown as paid by the coinbase itself.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, blockWith, eventually, externalAddress, receivedTotal, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
let client: StratumClient | null = null;

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, ['-scheme=solo', '-solofee=2.5', '-fee=7']);
  await pool.start();
});

after(async () => {
  client?.close();
  await pool?.cleanup();
  await node?.cleanup();
});

test('-solofee: the finder gets the reward minus the solo fee in the coinbase, the pool the fee beside it', async () => {
  const finder = externalAddress();
  const { poolAddress, soloFee } = await pool.api<{ poolAddress: string; soloFee: number }>('/api/pool/stats');
  assert.equal(soloFee, 2.5);
  client = await StratumClient.connect(pool.ports!.plain);
  await client.subscribe();
  await client.authorize(`${finder}.rig`);
  const s = client.solve(REGTEST.equihash, true, `${finder}.rig`);
  assert.deepEqual(await client.submit(s.params), { result: true, error: null });
  const hash = s.hash.toString(16).padStart(64, '0');
  const block = await blockWith(pool, hash, 'pending');

  const whole = 1_250_000_000;
  const fee = Math.floor((whole * 250) / 10_000);
  assert.deepEqual([block.solo, block.reward, block.fee, block.credits], [true, whole - fee, fee, { [finder]: whole - fee }]);
  const cb = await node.call<{ tx: { vout: { value: number; scriptPubKey: { address?: string } }[] }[] }>('getblock', hash, 2);
  assert.deepEqual(
    cb.tx[0].vout.filter((o) => o.value > 0).map((o) => [o.scriptPubKey.address, Math.round(o.value * 1e8)]),
    [
      [finder, whole - fee],
      [poolAddress, fee],
    ],
  );

  await node.call('generatetoaddress', 100, externalAddress());
  await blockWith(pool, hash, 'confirmed');
  const user = await eventually(async () => {
    const u = await pool.api<{ balance: { immature: number; pending: number; paid: number } }>(`/api/user/${finder}`);
    return u.balance.paid > 0 ? u : undefined;
  }, "the finder's credit shown as paid");
  assert.deepEqual(user.balance, { immature: 0, pending: 0, paid: whole - fee });
  assert.equal(await receivedTotal(node, finder), whole - fee);
});
