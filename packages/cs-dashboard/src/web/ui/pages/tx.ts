// One transaction (REST /rest/tx: the mempool, or the chain through the transaction index).
import type { Ctx } from '../api.ts';
import { addressLink, blockLink, facts, h, section, table, time, txLink } from '../dom.ts';

interface Tx {
  txid: string;
  hash: string;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: { txid?: string; vout?: number; coinbase?: string; sequence: number }[];
  vout: { value: number; n: number; scriptPubKey: { address?: string; type: string; asm: string } }[];
  blockhash?: string;
  confirmations?: number;
  blocktime?: number;
}

export async function txPage(ctx: Ctx, view: HTMLElement, txid: string): Promise<void> {
  const t = await ctx.rest<Tx>(`tx/${txid}.json`);
  const total = t.vout.reduce((a, o) => a + o.value, 0);
  view.append(
    section(
      'Transaction',
      facts([
        ['txid', h('span', { class: 'hash' }, t.txid)],
        ['status', t.blockhash ? `${t.confirmations} confirmations` : 'in the mempool'],
        ['block', t.blockhash ? blockLink(t.blockhash) : null],
        ['block time', t.blocktime ? time(t.blocktime) : null],
        ['size / vsize / weight', `${t.size} / ${t.vsize} / ${t.weight}`],
        ['locktime', t.locktime],
        ['outputs total', `${total.toFixed(8)}`],
      ]),
    ),
    section(
      'Inputs',
      table(
        ['#', 'spends', 'sequence'],
        t.vin.map((i, n) => [n, i.coinbase !== undefined ? `coinbase ${i.coinbase}` : h('span', {}, txLink(i.txid!), `:${i.vout}`), i.sequence]),
      ),
    ),
    section(
      'Outputs',
      table(
        ['#', 'value', 'to', 'type'],
        t.vout.map((o) => [
          o.n,
          o.value.toFixed(8),
          o.scriptPubKey.address ? addressLink(o.scriptPubKey.address) : o.scriptPubKey.asm,
          o.scriptPubKey.type,
        ]),
      ),
    ),
  );
}
