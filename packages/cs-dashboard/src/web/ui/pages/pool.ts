// The pool (docs/pool.md, "HTTP API"): hashrate over time (the dashboard server samples it),
// miners and workers, shares, blocks found with their maturity, and payments.
import uPlot from 'uplot';
import { type Ctx, getJson } from '../api.ts';
import { addressLink, blockLink, coins, facts, h, hashrate, section, table, timeMs, txLink } from '../dom.ts';

interface PoolStats {
  chain: string;
  scheme: string;
  fee: number;
  minPayout: number;
  poolAddress: string;
  connectedMiners: number;
  hashrate: number;
  shares: Record<string, number>;
  lastShare: number;
  blocks: Record<string, number>;
  network: { height?: number; difficulty?: number; hashrate?: number };
}

interface Worker {
  address: string;
  worker: string;
  hashrate: number;
  valid: number;
  invalid: number;
  stale: number;
  lastShare: number;
  connected: number;
}

interface PoolBlock {
  height: number;
  hash: string;
  status: string;
  confirmations: number;
  reward: number;
  finder: string;
  worker: string;
  solo: boolean;
  time: number;
}

interface Payment {
  id: string;
  txid: string | null;
  status: string;
  time: number;
  amounts: Record<string, number>;
}

/** Coinbase outputs spend after this many confirmations on every network (docs/protocol.md). */
const MATURITY = 100;
const REFRESH_MS = 10_000;

function chart(samples: { time: number; hashrate: number }[], width: number): HTMLElement {
  const box = h('div', { id: 'hashrate-chart' });
  const data: uPlot.AlignedData = [samples.map((s) => s.time / 1000), samples.map((s) => s.hashrate)];
  new uPlot(
    {
      width,
      height: 220,
      series: [{}, { label: 'pool hashrate (Sol/s)', stroke: '#2a6fdb', width: 2, fill: 'rgba(42,111,219,0.1)' }],
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => hashrate(t)), size: 90 }],
    },
    data,
    box,
  );
  return box;
}

function maturity(b: PoolBlock): string {
  if (b.status === 'orphaned') return 'orphaned';
  if (b.status === 'confirmed') return 'mature';
  return `${Math.min(b.confirmations, MATURITY)}/${MATURITY}`;
}

export async function poolPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  const draw = async () => {
    const [stats, workers, blocks, payments, history] = await Promise.all([
      ctx.pool<PoolStats>('pool/stats'),
      ctx.pool<Worker[]>('workers'),
      ctx.pool<PoolBlock[]>('blocks'),
      ctx.pool<Payment[]>('payments'),
      getJson<{ time: number; hashrate: number }[]>('/api/pool-history'),
    ]);
    const samples = history;
    const miners = new Map<string, Worker[]>();
    for (const w of workers) miners.set(w.address, [...(miners.get(w.address) ?? []), w]);
    view.replaceChildren(
      section(
        'Pool',
        facts([
          ['hashrate', h('span', { id: 'pool-hashrate' }, hashrate(stats.hashrate))],
          ['miners connected', stats.connectedMiners],
          ['scheme / fee', `${stats.scheme} / ${stats.fee}%`],
          ['pool address', addressLink(stats.poolAddress)],
          [
            'shares',
            Object.entries(stats.shares)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          ],
          ['last share', timeMs(stats.lastShare)],
          [
            'blocks',
            Object.entries(stats.blocks)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          ],
          ['network', `height ${stats.network.height ?? '?'}, hashrate ${hashrate(stats.network.hashrate ?? 0)}`],
        ]),
      ),
      section(
        'Hashrate',
        samples.length > 0 ? chart(samples, Math.min(900, view.clientWidth || 900)) : h('p', {}, 'No samples yet (one every 10 s).'),
      ),
      section(
        'Miners',
        table(
          ['address', 'hashrate', 'workers online', 'valid', 'invalid', 'stale', 'last share'],
          [...miners].map(([address, ws]) => [
            addressLink(address),
            hashrate(ws.reduce((a, w) => a + w.hashrate, 0)),
            ws.filter((w) => w.connected > 0).length,
            ws.reduce((a, w) => a + w.valid, 0),
            ws.reduce((a, w) => a + w.invalid, 0),
            ws.reduce((a, w) => a + w.stale, 0),
            timeMs(Math.max(...ws.map((w) => w.lastShare))),
          ]),
          { id: 'pool-miners' },
        ),
      ),
      section(
        'Workers',
        table(
          ['worker', 'address', 'hashrate', 'online', 'valid', 'invalid', 'stale', 'last share'],
          workers.map((w) => [
            w.worker,
            addressLink(w.address),
            hashrate(w.hashrate),
            w.connected > 0 ? 'yes' : 'no',
            w.valid,
            w.invalid,
            w.stale,
            timeMs(w.lastShare),
          ]),
        ),
      ),
      section(
        'Blocks found',
        table(
          ['height', 'hash', 'status', 'maturity', 'reward', 'finder', 'time'],
          blocks.map((b) => [
            b.height,
            blockLink(b.hash),
            b.status,
            maturity(b),
            coins(b.reward),
            `${b.finder}.${b.worker}${b.solo ? ' (solo)' : ''}`,
            timeMs(b.time),
          ]),
          { id: 'pool-blocks' },
        ),
      ),
      section(
        'Payments',
        table(
          ['time', 'status', 'transaction', 'recipients', 'total'],
          payments.map((p) => [
            timeMs(p.time),
            p.status,
            p.txid ? txLink(p.txid) : '—',
            Object.keys(p.amounts).length,
            coins(Object.values(p.amounts).reduce((a, v) => a + v, 0)),
          ]),
        ),
      ),
    );
  };
  await draw();
  ctx.every(REFRESH_MS, () => void draw().catch(() => {}));
}
