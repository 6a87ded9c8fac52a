import type { MetricsRegistry } from '@cs/runtime/metrics';
import type { Chain } from './chainstate.ts';

/** Seconds per block connect: from an empty regtest block up to a full block on a slow disk. */
const CONNECT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The chain's Prometheus series: how long block connects take and how many inputs they verify
 * (a sync's throughput is inputs per second), and the active height.
 */
export function registerChainMetrics(registry: MetricsRegistry, chain: Chain): void {
  const duration = registry.histogram({
    name: 'csd_block_connect_duration_seconds',
    help: 'Time to connect a block to the active chain: read, checks, scripts and the atomic write.',
    buckets: CONNECT_BUCKETS,
  });
  const phase = registry.histogram({
    name: 'csd_block_connect_phase_seconds',
    help: 'Block connect time by phase: plan (read, checks, coin lookups), scripts (waiting for script checks), write.',
    labelNames: ['phase'],
    buckets: CONNECT_BUCKETS,
  });
  const inputs = registry.counter({ name: 'csd_block_connect_inputs_total', help: 'Inputs verified by block connects.' });
  const ahead = registry.counter({
    name: 'csd_block_connect_planned_ahead_total',
    help: "Blocks connected with a plan made while their parent's scripts were checked (stored blocks connected in a row).",
  });
  const height = registry.gauge({ name: 'csd_chain_height', help: 'Height of the active chain tip.' });
  const cacheCoins = registry.gauge({ name: 'csd_coins_cache_coins', help: 'UTXO changes held in memory and not yet written (the coins cache).' });
  const cacheBytes = registry.gauge({
    name: 'csd_coins_cache_bytes',
    help: 'Memory held by the coins cache (its table and the values kept beside it), bounded by -dbcache.',
  });
  height.set({}, chain.height);
  chain.events.on('connect', ({ timing }) => {
    duration.observe({}, timing.seconds);
    for (const [name, seconds] of Object.entries(timing.phases)) phase.observe({ phase: name }, seconds);
    inputs.inc({}, timing.inputs);
    if (timing.plannedAhead) ahead.inc({});
    const usage = chain.coinsCacheUsage;
    cacheCoins.set({}, usage.coins);
    cacheBytes.set({}, usage.bytes);
  });
  chain.events.on('tip', (tip) => height.set({}, tip.height));
}
