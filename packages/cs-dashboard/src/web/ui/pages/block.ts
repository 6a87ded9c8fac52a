// One block: its header fields and its transactions. Reached by hash or height; a 64-hex search
// that is not a block goes on to the transaction page.
import { ApiError, type Ctx } from '../api.ts';
import { blockLink, facts, h, section, short, time, txLink } from '../dom.ts';

interface Block {
  hash: string;
  confirmations: number;
  height: number;
  version: number;
  merkleroot: string;
  time: number;
  mediantime: number;
  nonce: string;
  bits: string;
  difficulty: number;
  chainwork: string;
  nTx: number;
  size: number;
  weight: number;
  tx: string[];
  previousblockhash?: string;
  nextblockhash?: string;
}

export async function blockPage(ctx: Ctx, view: HTMLElement, arg: string): Promise<void> {
  let hash = arg;
  if (/^\d+$/.test(arg)) hash = (await ctx.rest<{ blockhash: string }>(`blockhashbyheight/${arg}.json`)).blockhash;
  let b: Block;
  try {
    b = await ctx.rest<Block>(`block/${hash}.json`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && /^[0-9a-f]{64}$/i.test(arg)) {
      location.replace(`#/tx/${arg}`);
      return;
    }
    throw e;
  }
  view.append(
    section(
      `Block ${b.height}`,
      facts([
        ['hash', short(b.hash, 32)],
        ['confirmations', b.confirmations],
        ['time', time(b.time)],
        ['median time', time(b.mediantime)],
        ['previous', b.previousblockhash ? blockLink(b.previousblockhash) : null],
        ['next', b.nextblockhash ? blockLink(b.nextblockhash) : null],
        ['merkle root', short(b.merkleroot, 16)],
        ['version', b.version],
        ['bits', b.bits],
        ['difficulty', String(b.difficulty)],
        ['nonce', short(b.nonce, 16)],
        ['size / weight', `${b.size} / ${b.weight}`],
        ['transactions', b.nTx],
      ]),
    ),
    section('Transactions', h('ol', { class: 'txs' }, ...b.tx.map((t) => h('li', {}, txLink(t))))),
  );
}
