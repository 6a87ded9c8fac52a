// cs-bridge, from one run against a real csd (regtest), a real cs-pool and a real cs-bridge
// process: the latency the bridge adds to mining.submit. With 1,000 miners connected through the
// bridge (each with its own upstream connection to the pool), one client submits pre-solved shares
// through the bridge and another straight to the pool, alternately, one at a time; each share's
// time is from writing the line to reading the pool's answer. The added latency is the bridged
// percentile minus the direct one (goal p99 <= 1 ms added).
//   node --conditions=@cs/source --import tsx bench/bridge.ts
import { REGTEST } from '@cs/consensus';
import { externalAddress } from '../packages/cs-pool/test/pool-harness.ts';
import { StratumClient } from '../packages/cs-pool/test/stratum-client.ts';
import { BridgeProcess, fundedAddress, startChain } from '../packages/cs-bridge/test/bridge-harness.ts';

const MINERS = 1000;
const SHARES = 1000;
/** Shares sent each way first and not counted: JIT warm-up of both paths. */
const WARMUP = 200;

const percentile = (xs: readonly number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

const chain = await startChain(['-maxperip=5000', '-maxconnections=5000', '-loglevel=info', '-txrefresh=3600', '-processinterval=30']);
let bridge: BridgeProcess | null = null;

try {
  const opoi = await fundedAddress(chain, 5);
  const started = await BridgeProcess.create(chain, {
    OPOI_ADDRESSES: opoi.address,
    OPOI_STAKE_UTXO: opoi.utxo,
    LOG_LEVEL: 'warn',
    POLL_INTERVAL_SECS: '5',
  });
  bridge = started;
  await started.start();
  const wallet = externalAddress();
  const miners: StratumClient[] = [];
  for (let i = 0; i < MINERS; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, MINERS - i) }, () => StratumClient.connect(started.stratumPort)));
    await Promise.all(batch.map((c) => c.subscribe()));
    await Promise.all(batch.map((c, j) => c.authorize(`${wallet}.m${i + j}`)));
    miners.push(...batch);
  }
  const direct = await StratumClient.connect(chain.pool.ports!.plain);
  const bridged = await StratumClient.connect(started.stratumPort);
  const solved = new Map<StratumClient, string[][]>();
  for (const [c, worker] of [
    [direct, 'direct'],
    [bridged, 'bridged'],
  ] as const) {
    await c.subscribe();
    await c.authorize(`${wallet}.${worker}`);
    solved.set(
      c,
      Array.from({ length: WARMUP + SHARES }, () => c.solve(REGTEST.equihash, false, `${wallet}.${worker}`).params),
    );
  }
  const times = new Map<StratumClient, number[]>([
    [direct, []],
    [bridged, []],
  ]);
  for (let i = 0; i < WARMUP + SHARES; i++) {
    for (const c of [direct, bridged]) {
      const t0 = performance.now();
      const r = await c.submit(solved.get(c)![i]);
      if (i >= WARMUP) times.get(c)!.push(performance.now() - t0);
      if (r.result !== true) throw new Error(`share refused: ${JSON.stringify(r.error)}`);
    }
  }
  const [d, b] = [times.get(direct)!, times.get(bridged)!];
  const line = (p: number) => {
    const [dp, bp] = [percentile(d, p), percentile(b, p)];
    return `p${p} direct ${dp.toFixed(3)} ms, through the bridge ${bp.toFixed(3)} ms, added ${(bp - dp).toFixed(3)} ms (ratio ${(bp / dp).toFixed(2)})`;
  };
  console.log(
    `mining.submit with ${MINERS} miners connected through the bridge, ${SHARES} shares each way:\n  ${line(50)}\n  ${line(99)} (goal: p99 added <= 1 ms)`,
  );
  for (const c of [...miners, direct, bridged]) c.close();
} finally {
  await bridge?.cleanup();
  await chain.pool.cleanup();
  await chain.node.cleanup();
}
