// cs-pool's PostgreSQL store, from one run on a throwaway cluster (Debian's server binaries, as the
// tests start it; fsync off there, so real commits cost more and favour batching further):
// shares/s through PgStore.addShare (group commit: one INSERT for the shares that arrive while the
// previous one runs) against one INSERT per share on a pool of 8 connections (what it did before),
// in alternate rounds of 5,000 shares sent at once.
//   node --conditions=@cs/source --import tsx bench/pool-pg.ts
import { REGTEST } from '@cs/consensus';
import pg from 'pg';
import { PgStore } from '../packages/cs-pool/src/accounting/pg-store.ts';
import type { NewShare } from '../packages/cs-pool/src/accounting/store.ts';
import { startCluster } from '../packages/cs-pool/test/postgres.ts';
import { median } from './lib/stats.ts';

const SHARES = 5000;
const ROUNDS = 5;

const cluster = await startCluster();
if (typeof cluster === 'string') {
  console.log(`PostgreSQL share path: skipped (${cluster})`);
  process.exit(0);
}
try {
  const store = await PgStore.open(cluster.url, REGTEST.powLimit);
  const direct = new pg.Pool({ connectionString: cluster.url, max: 8 });
  const share = (i: number): NewShare => ({
    address: 'csrt1qbenchaddress',
    worker: `rig${i % 16}`,
    weight: 2n ** 40n + BigInt(i),
    difficulty: 1,
    solo: false,
    time: Date.now(),
  });
  const onePerShare = (s: NewShare) =>
    direct.query('INSERT INTO shares (address, worker, weight, difficulty, solo, time) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq', [
      s.address,
      s.worker,
      s.weight.toString(),
      s.difficulty,
      s.solo,
      s.time,
    ]);
  const rate = async (add: (s: NewShare) => Promise<unknown>) => {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SHARES }, (_, i) => add(share(i))));
    return SHARES / ((performance.now() - t0) / 1000);
  };
  await rate((s) => store.addShare(s));
  await rate(onePerShare);
  const grouped: number[] = [];
  const single: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      grouped.push(await rate((s) => store.addShare(s)));
      single.push(await rate(onePerShare));
    } else {
      single.push(await rate(onePerShare));
      grouped.push(await rate((s) => store.addShare(s)));
    }
  }
  console.log(
    `PostgreSQL share path: group commit ${Math.round(median(grouped))} shares/s, one INSERT per share ${Math.round(median(single))} shares/s, ` +
      `ratio ${(median(grouped) / median(single)).toFixed(1)}x (medians of ${ROUNDS} rounds of ${SHARES} shares sent at once)`,
  );
  await direct.end();
  await store.close();
} finally {
  cluster.stop();
}
