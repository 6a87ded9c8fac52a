// Raw single-core libsecp256k1 verification, the baseline bench/p2p.ts compares -reindex with.
// Run as a script it prints the rate on whatever core it runs on (bench/p2p.ts pins it with taskset).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ecdsaSign, publicKeyCreate, sha256 } from '@cs/consensus';
import { median } from './stats.ts';

/** libsecp256k1's verify through the secp256k1 package's bindings, with nothing of ours around it. */
export const native = createRequire(import.meta.url)('secp256k1/bindings') as {
  ecdsaVerify(sig64: Uint8Array, msg32: Uint8Array, pubkey: Uint8Array): boolean;
};

/**
 * Verifications per second over 2,000 signatures, as the chain's inputs carry: the median of 11
 * rounds (about 2 s).
 */
export function rawVerifyRate(): number {
  const priv = new Uint8Array(32).fill(1);
  const pub = publicKeyCreate(priv, true);
  const triples = Array.from({ length: 2000 }, (_, i) => {
    const msg = sha256(Uint8Array.of(i & 0xff, i >> 8));
    return { sig: ecdsaSign(msg, priv).signature, msg };
  });
  const rates: number[] = [];
  for (let round = 0; round < 11; round++) {
    const t0 = performance.now();
    for (const t of triples) if (!native.ecdsaVerify(t.sig, t.msg, pub)) throw new Error('raw verify failed');
    rates.push(triples.length / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

/**
 * The rate on each core in turn, pinned there with taskset: on shared cores one core can run a
 * third slower than the other for minutes (another tenant on its sibling thread), and an unpinned
 * measurement lands on either. Without taskset, one unpinned measurement.
 */
export function rawVerifyRatePerCore(): number[] {
  const rates: number[] = [];
  for (let cpu = 0; cpu < availableParallelism(); cpu++) {
    const run = spawnSync(
      'taskset',
      ['-c', String(cpu), process.execPath, '--conditions=@cs/source', '--import', 'tsx', fileURLToPath(import.meta.url)],
      { encoding: 'utf8' },
    );
    if (run.error || run.status !== 0) return [rawVerifyRate()];
    rates.push(Number(run.stdout.trim()));
  }
  return rates;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(Math.round(rawVerifyRate()));
