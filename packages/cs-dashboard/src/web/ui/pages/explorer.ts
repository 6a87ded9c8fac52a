// The explorer's front page: the chain tip, the latest blocks (new ones added live from the
// node's new-blocks feed) and the mempool's size.
import type { Ctx } from '../api.ts';
import { blockLink, facts, h, section, short, time } from '../dom.ts';

interface ChainInfo {
  chain: string;
  blocks: number;
  bestblockhash: string;
  difficulty: number;
  mediantime: number;
  chainwork: string;
  size_on_disk: number;
}

interface BlockSummary {
  hash: string;
  height: number;
  time: number;
  nTx: number;
  size: number;
  difficulty: number;
}

const SHOWN = 15;

function blockRow(b: BlockSummary, fresh = false): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-height': String(b.height), class: fresh ? 'fresh' : '' },
    h('td', {}, h('a', { href: `#/block/${b.hash}` }, b.height)),
    h('td', {}, blockLink(b.hash)),
    h('td', {}, time(b.time)),
    h('td', {}, b.nTx),
    h('td', {}, b.size),
  );
}

export async function explorerPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  const [info, mempool] = await Promise.all([ctx.rpc<ChainInfo>('getblockchaininfo'), ctx.rpc<{ size: number; bytes: number }>('getmempoolinfo')]);
  const heights = Array.from({ length: Math.min(SHOWN, info.blocks + 1) }, (_, i) => info.blocks - i);
  const hashes = await Promise.all(heights.map((n) => ctx.rpc<string>('getblockhash', n)));
  const blocks = await Promise.all(hashes.map((hash) => ctx.rpc<BlockSummary>('getblock', hash, 1)));

  const tipHeight = h('span', { id: 'tip-height' }, info.blocks);
  const tipHash = h('span', { id: 'tip-hash' }, short(info.bestblockhash, 16));
  const mempoolSize = h('span', { id: 'mempool-size' }, mempool.size);
  const rows = h('tbody', { id: 'recent-blocks' }, ...blocks.map((b) => blockRow(b)));
  view.append(
    section(
      'Chain tip',
      facts([
        ['chain', info.chain],
        ['height', tipHeight],
        ['best block', h('a', { href: `#/block/${info.bestblockhash}` }, tipHash)],
        ['difficulty', String(info.difficulty)],
        ['median time', time(info.mediantime)],
        ['mempool', h('a', { href: '#/mempool' }, mempoolSize, ' transactions')],
      ]),
    ),
    section(
      'Latest blocks',
      h('table', {}, h('thead', {}, h('tr', {}, ...['height', 'hash', 'time', 'transactions', 'size'].map((t) => h('th', {}, t)))), rows),
    ),
  );

  ctx.live.on((p) => {
    if (p.node !== ctx.node) return;
    if (p.type === 'mempool') mempoolSize.textContent = String(Number(mempoolSize.textContent) + (p.event === 'added' ? 1 : -1));
    if (p.type !== 'new-blocks') return;
    const b = p as unknown as BlockSummary & { disconnected: boolean };
    if (b.disconnected) {
      rows.querySelector(`tr[data-height="${b.height}"]`)?.remove();
      return;
    }
    rows.querySelector(`tr[data-height="${b.height}"]`)?.remove();
    rows.prepend(blockRow(b, true));
    while (rows.children.length > SHOWN) rows.lastElementChild!.remove();
    tipHeight.textContent = String(b.height);
    tipHash.replaceChildren(short(b.hash, 16));
    (tipHash.parentElement as HTMLAnchorElement).href = `#/block/${b.hash}`;
  });
}
