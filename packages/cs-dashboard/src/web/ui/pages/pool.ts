// The pool (docs/pool.md, "HTTP API"): hashrate over time (the dashboard server samples it),
// miners, the workers online and those gone, shares, blocks found with their maturity, and
// payments, the last two a page at a time (the pool's page and pageSize; at 250 blocks one list
// was 6,000 px tall).
import uPlot from 'uplot';
import { type Ctx, getJson } from '../api.ts';
import { addressLink, blockLink, coins, facts, h, hashrate, section, table, timeMs, txLink } from '../dom.ts';
import { PAGE_SIZE } from '../paging.ts';

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
  payments: Record<string, number>;
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
  disconnected: number;
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

/** Newer / older buttons around "page i of n"; `go` shows another page. */
function pager(id: string, page: number, total: number, go: (page: number) => void): HTMLElement {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const button = (label: string, cls: string, to: number, off: boolean) => {
    const b = h('button', { type: 'button', class: cls, ...(off ? { disabled: '' } : {}) }, label);
    b.onclick = () => go(to);
    return b;
  };
  return h(
    'div',
    { class: 'pager', id },
    button('‹ newer', 'newer', page - 1, page === 0),
    h('span', {}, ` page ${page + 1} of ${pages} (${total}) `),
    button('older ›', 'older', page + 1, page + 1 >= pages),
  );
}

const sum = (counts: Record<string, number>, except: string[] = []) =>
  Object.entries(counts).reduce((a, [k, v]) => (except.includes(k) ? a : a + v), 0);

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
  if (b.status === 'side') return 'off the active chain';
  if (b.status === 'confirmed') return 'mature';
  return `${Math.min(b.confirmations, MATURITY)}/${MATURITY}`;
}

export async function poolPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  let blocksPage = 0;
  let paymentsPage = 0;
  const draw = async () => {
    const paged = (page: number) => `?page=${page}&pageSize=${PAGE_SIZE}`;
    const [stats, workers, everyWorker, blocks, payments, history] = await Promise.all([
      ctx.pool<PoolStats>('pool/stats'),
      ctx.pool<Worker[]>('workers'),
      ctx.pool<Worker[]>('workers/history'),
      ctx.pool<PoolBlock[]>(`blocks${paged(blocksPage)}`),
      ctx.pool<Payment[]>(`payments${paged(paymentsPage)}`),
      getJson<{ time: number; hashrate: number }[]>('/api/pool-history'),
    ]);
    const samples = history;
    const gone = everyWorker.filter((w) => w.connected === 0);
    const miners = new Map<string, Worker[]>();
    for (const w of everyWorker) miners.set(w.address, [...(miners.get(w.address) ?? []), w]);
    const show = (set: (page: number) => void) => (page: number) => {
      set(page);
      void draw().catch(() => {});
    };
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
        'Workers online',
        table(
          ['worker', 'address', 'hashrate', 'connections', 'valid', 'invalid', 'stale', 'last share'],
          workers.map((w) => [w.worker, addressLink(w.address), hashrate(w.hashrate), w.connected, w.valid, w.invalid, w.stale, timeMs(w.lastShare)]),
          { id: 'pool-workers' },
        ),
      ),
      section(
        'Workers gone',
        table(
          ['worker', 'address', 'hashrate', 'valid', 'invalid', 'stale', 'last share', 'disconnected'],
          gone.map((w) => [
            w.worker,
            addressLink(w.address),
            hashrate(w.hashrate),
            w.valid,
            w.invalid,
            w.stale,
            timeMs(w.lastShare),
            timeMs(w.disconnected),
          ]),
          { id: 'pool-workers-gone' },
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
        pager(
          'pool-blocks-pager',
          blocksPage,
          sum(stats.blocks, ['rejected']),
          show((p) => {
            blocksPage = p;
          }),
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
          { id: 'pool-payments' },
        ),
        pager(
          'pool-payments-pager',
          paymentsPage,
          sum(stats.payments),
          show((p) => {
            paymentsPage = p;
          }),
        ),
      ),
    );
  };
  await draw();
  ctx.every(REFRESH_MS, () => void draw().catch(() => {}));
}
