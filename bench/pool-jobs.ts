// cs-pool's work between a getblocktemplate answer and the first notify line it can write, on
// templates of 0, 1,000 and 4,000 transactions (a full mainnet block holds a few thousand): the
// template prepared once (the transactions' merkle branch), the pool's job (its coinbase and
// root) and its notify line, then ten solo miners' jobs from the same template. Each ÷ parsing
// the same answer's JSON, which the pool's RPC client does before any of it and which grows with
// the template in the same way: the floor. Medians of 30 rounds, in one process.
//   node --conditions=@cs/source --import tsx bench/pool-jobs.ts
import { randomBytes } from 'node:crypto';
import { REGTEST } from '@cs/consensus';
import { type BlockTemplate, buildJob, encodeNotification, notifyParams, prepareTemplate, targetToHex } from '@cs/stratum';
import { median } from './lib/stats.ts';

const ROUNDS = 30;
const SOLO_MINERS = 10;
const TX_BYTES = 250;

/** A getblocktemplate answer as csd writes it (docs/mining.md), with `count` transactions. */
function answer(count: number): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({
    version: 4,
    previousblockhash: randomBytes(32).toString('hex'),
    transactions: Array.from({ length: count }, () => {
      const txid = randomBytes(32).toString('hex');
      return { data: randomBytes(TX_BYTES).toString('hex'), txid, hash: txid, depends: [], fee: 1000, sigops: 4, weight: TX_BYTES * 4 };
    }),
    coinbasevalue: 1_250_000_000 + count * 1000,
    target: targetToHex(REGTEST.powLimit),
    mintime: now - 600,
    curtime: now,
    bits: REGTEST.powLimitBits.toString(16),
    height: 1000,
    default_witness_commitment: `6a24aa21a9ed${randomBytes(32).toString('hex')}`,
    finalsaplingroothash: '00'.repeat(32),
    longpollid: `${randomBytes(32).toString('hex')}1`,
  });
}

const poolScript = Uint8Array.of(0x00, 0x14, ...randomBytes(20));
const tag = new TextEncoder().encode('/cs-pool/bench/');

function jobs(t: BlockTemplate): { first: number; solo: number } {
  const start = performance.now();
  const prepared = prepareTemplate(t);
  const value = BigInt(t.coinbasevalue);
  const job = buildJob({ id: '1', template: prepared, payouts: [{ value, scriptPubKey: poolScript }], coinbaseTag: tag, equihash: REGTEST.equihash });
  Buffer.from(encodeNotification('mining.notify', notifyParams(job, true)));
  const first = performance.now() - start;
  for (let i = 0; i < SOLO_MINERS; i++) {
    const script = Uint8Array.of(0x00, 0x14, ...randomBytes(20));
    buildJob({ id: `${i + 2}`, template: prepared, payouts: [{ value, scriptPubKey: script }], coinbaseTag: tag, equihash: REGTEST.equihash });
  }
  return { first, solo: (performance.now() - start - first) / SOLO_MINERS };
}

for (const count of [0, 1000, 4000]) {
  const text = answer(count);
  const parse: number[] = [];
  const first: number[] = [];
  const solo: number[] = [];
  for (let r = 0; r < ROUNDS + 3; r++) {
    const start = performance.now();
    const t = JSON.parse(text) as BlockTemplate;
    const parsed = performance.now() - start;
    const j = jobs(t);
    if (r < 3) continue;
    parse.push(parsed);
    first.push(j.first);
    solo.push(j.solo);
  }
  const [p, f, s] = [median(parse), median(first), median(solo)];
  console.log(
    `template of ${count} transactions (${(text.length / 1e6).toFixed(2)} MB of JSON): to the first notify line ${f.toFixed(3)} ms = ${(f / p).toFixed(2)} × parsing its JSON (${p.toFixed(3)} ms); each solo miner's job ${s.toFixed(3)} ms = ${(s / p).toFixed(3)} ×`,
  );
}
