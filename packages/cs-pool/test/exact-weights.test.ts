// Share weights to the base unit, end to end against real csd, for PPLNS and PROP on both stores
// (LMDB, and PostgreSQL on a throwaway cluster): miners at static fractional difficulties (0.5,
// 0.3, 0.1 through `d=` passwords) send shares, and each block's credits are compared with an
// independent model of docs/pool.md's scheme in exact fractions (payout-model.ts). The first
// block is issue 34's example: one 0.5 share and three 0.1 shares (X, X, Z) split 5 : 2 : 1, where
// truncated work paid 8 : 2 : 1. The second block's PPLNS window ends inside a share.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST, compactToTarget } from '@cs/consensus';
import pg from 'pg';
import type { Daemon } from '../../csd/test/daemon.ts';
import { type ModelCredits, type ModelShare, modelPplns, modelProp } from './payout-model.ts';
import { type ApiBlock, PoolProcess, blockWith, eventually, externalAddress, jobOnTip, startNode } from './pool-harness.ts';
import { type Cluster, startCluster } from './postgres.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let zmq: string;
let cluster: Cluster | string;

before(async () => {
  ({ node, zmq } = await startNode());
  cluster = await startCluster();
});

after(async () => {
  await node?.cleanup();
  if (cluster && typeof cluster !== 'string') cluster.stop();
});

interface Miner {
  readonly address: string;
  readonly client: StratumClient;
}

/** A database of its own on the test cluster, for one pool. */
async function database(c: Cluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: c.url.replace(/\/pool$/, '/postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return c.url.replace(/\/pool$/, `/${name}`);
}

for (const scheme of ['pplns', 'prop'] as const) {
  for (const store of ['lmdb', 'postgres'] as const) {
    test(`${scheme} on ${store}: fractional difficulties credited to the base unit, as the documented scheme says`, async (t) => {
      if (store === 'postgres' && typeof cluster === 'string') return t.skip(`PostgreSQL unavailable: ${cluster}`);
      const db = store === 'postgres' ? [`-db=${await database(cluster as Cluster, `exact_${scheme}`)}`] : [];
      const pool = new PoolProcess(node, zmq, [`-scheme=${scheme}`, '-fee=1', '-pplnsfactor=2', ...db]);
      const clients: StratumClient[] = [];
      try {
        await pool.start();
        const miner = async (difficulty: string): Promise<Miner> => {
          const client = await StratumClient.connect(pool.ports!.plain);
          clients.push(client);
          const address = externalAddress();
          await client.subscribe();
          assert.equal((await client.authorize(`${address}.rig`, `d=${difficulty}`)).result, true);
          return { address, client };
        };
        const [y, x, z, w] = [await miner('0.5'), await miner('0.1'), await miner('0.1'), await miner('0.3')];
        const sent: ModelShare[] = [];
        const share = async (m: Miner, block = false): Promise<string> => {
          const c = m.client;
          await jobOnTip(node, c);
          const s = c.solve(REGTEST.equihash, block, `${m.address}.rig`);
          assert.deepEqual(await c.submit(s.params), { result: true, error: null });
          // The target the pool set for this miner is the one the share was accepted at.
          sent.push({ address: m.address, target: c.target });
          const hash = s.hash.toString(16).padStart(64, '0');
          if (block)
            await eventually(async () => ((await node.call<string>('getbestblockhash')) === hash ? true : undefined), 'the block on the chain');
          return hash;
        };
        const credited = (hash: string) => blockWith(pool, hash, 'pending');
        const model = async (block: ApiBlock, round: readonly ModelShare[]): Promise<ModelCredits> => {
          const m = { reward: BigInt(block.reward), feeBasisPoints: 100, powLimit: REGTEST.powLimit };
          if (scheme === 'prop') return modelProp(m, round);
          const { bits } = await node.call<{ bits: string }>('getblock', block.hash, 1);
          return modelPplns(m, sent, compactToTarget(Number.parseInt(bits, 16)).target, [2n, 1n]);
        };

        // Issue 34's example: Y 0.5, X 0.1 twice, then Z's 0.1 share finds the block.
        for (const m of [y, x, x]) await share(m);
        const first = await credited(await share(z, true));
        assert.equal(first.reward, 1_250_000_000);
        assert.deepEqual(first.credits, await model(first, sent));
        assert.deepEqual(first.credits, { [y.address]: 773_437_500, [x.address]: 309_375_000, [z.address]: 154_687_500 });

        // Round two: 2.4 of difficulty since the first block; the PPLNS window (2 x the network
        // difficulty, 2.0000001 on regtest) ends inside the fifth-newest 0.1 share of X.
        const roundStart = sent.length;
        for (const m of [x, x, x, x, x, y, y, w, w, x, x]) await share(m);
        const second = await credited(await share(z, true));
        const expected = await model(second, sent.slice(roundStart));
        assert.deepEqual(second.credits, expected);
        const total = Object.values(second.credits).reduce((a, v) => a + v, 0);
        assert.equal(total + second.fee, second.reward, 'every unit of the reward is credited or the fee');
      } finally {
        for (const c of clients) c.close();
        await pool.cleanup();
      }
    });
  }
}
