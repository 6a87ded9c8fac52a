// The explorer's front page: the chain tip, the latest blocks (new ones added live from the
// node's new-blocks feed) and the mempool's size.
import type { Ctx } from '../api.ts';
import type { Push } from '../live.ts';
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
  // Listen before reading the chain: a block connected while the page loads is applied after.
  const early: Push[] = [];
  let apply: ((p: Push) => void) | null = null;
  ctx.live.on((p) => {
    if (p.node !== ctx.node) return;
    if (apply) apply(p);
    else early.push(p);
  });
  const [info, mempool] = await Promise.all([ctx.rpc<ChainInfo>('getblockchaininfo'), ctx.rpc<{ size: number; bytes: number }>('getmempoolinfo')]);
  const heights = Array.from({ length: Math.min(SHOWN, info.blocks + 1) }, (_, i) => info.blocks - i);
  const hashes = await Promise.all(heights.map((n) => ctx.rpc<string>('getblockhash', n)));
  const blocks = await Promise.all(hashes.map((hash) => ctx.rpc<BlockSummary>('getblock', hash, 1)));

  let tip = info.blocks;
  const tipHeight = h('span', { id: 'tip-height' }, info.blocks);
  const tipHash = h('span', { id: 'tip-hash' }, short(info.bestblockhash, 16));
  const tipLink = h('a', { href: `#/block/${info.bestblockhash}` }, tipHash);
  const mempoolSize = h('span', { id: 'mempool-size' }, mempool.size);
  const rows = h('tbody', { id: 'recent-blocks' }, ...blocks.map((b) => blockRow(b)));
  view.append(
    section(
      'Chain tip',
      facts([
        ['chain', info.chain],
        ['height', tipHeight],
        ['best block', tipLink],
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

  apply = (p) => {
    if (p.type === 'mempool') mempoolSize.textContent = String(Math.max(0, Number(mempoolSize.textContent) + (p.event === 'added' ? 1 : -1)));
    if (p.type !== 'new-blocks') return;
    const b = p as unknown as BlockSummary & { disconnected: boolean };
    rows.querySelector(`tr[data-height="${b.height}"]`)?.remove();
    if (b.disconnected) {
      tip = Math.min(tip, b.height - 1);
      return;
    }
    // Rows stay in height order whatever order pushes come in (a reorg sends the new branch after the old one left).
    const below = [...rows.children].find((r) => Number(r.getAttribute('data-height')) < b.height);
    rows.insertBefore(blockRow(b, true), below ?? null);
    while (rows.children.length > SHOWN) rows.lastElementChild!.remove();
    if (b.height >= tip) {
      tip = b.height;
      tipHeight.textContent = String(b.height);
      tipHash.replaceChildren(short(b.hash, 16));
      tipLink.href = `#/block/${b.hash}`;
    }
  };
  // Pushes that came while loading: blocks already read are drawn again, the same.
  for (const p of early) if (p.type === 'new-blocks') apply(p);
}
