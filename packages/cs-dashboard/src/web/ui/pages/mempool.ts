// The mempool: its figures and entries, refreshed when the live feed reports a change.
import type { Ctx } from '../api.ts';
import { facts, h, section, table, time, txLink } from '../dom.ts';

interface MempoolInfo {
  size: number;
  bytes: number;
  usage: number;
  total_fee: number;
  mempoolminfee: number;
}

interface Entry {
  vsize: number;
  time: number;
  fees: { base: number };
  depends: string[];
}

export async function mempoolPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  let pending = false;
  const draw = async () => {
    const [info, contents] = await Promise.all([
      ctx.rest<MempoolInfo>('mempool/info.json'),
      ctx.rest<Record<string, Entry>>('mempool/contents.json'),
    ]);
    const entries = Object.entries(contents).sort((a, b) => b[1].time - a[1].time);
    view.replaceChildren(
      section(
        'Mempool',
        facts([
          ['transactions', h('span', { id: 'mempool-count' }, info.size)],
          ['size', `${info.bytes} vbytes`],
          ['memory', `${info.usage} bytes`],
          ['fees', info.total_fee.toFixed(8)],
          ['minimum fee rate', `${info.mempoolminfee} /kvB`],
        ]),
      ),
      section(
        'Transactions',
        table(
          ['txid', 'entered', 'vsize', 'fee', 'depends on'],
          entries.slice(0, 500).map(([txid, e]) => [txLink(txid), time(e.time), e.vsize, e.fees.base.toFixed(8), e.depends.length]),
        ),
      ),
    );
  };
  await draw();
  ctx.live.on((p) => {
    if (p.node !== ctx.node || (p.type !== 'mempool' && p.type !== 'new-blocks') || pending) return;
    // Many pushes come at once when a block confirms a full mempool: one redraw for the burst.
    pending = true;
    setTimeout(() => {
      pending = false;
      void draw().catch(() => {});
    }, 300);
  });
}
