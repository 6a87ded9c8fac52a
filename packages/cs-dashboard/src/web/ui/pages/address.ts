// One address, from the node's address index (REST /rest/address), kept current from the live feed.
import type { Ctx } from '../api.ts';
import { facts, h, section, txLink } from '../dom.ts';

interface Address {
  address: string;
  balance: number;
  totalReceived: number;
  totalSent: number;
  unconfirmedBalance: number;
  txApperances: number;
  unconfirmedTxApperances: number;
  transactions: string[];
}

export async function addressPage(ctx: Ctx, view: HTMLElement, address: string): Promise<void> {
  const draw = async () => {
    const a = await ctx.rest<Address>(`address/${address}.json`);
    view.replaceChildren(
      section(
        'Address',
        facts([
          ['address', h('span', { class: 'hash' }, a.address)],
          ['balance', a.balance.toFixed(8)],
          ['received', a.totalReceived.toFixed(8)],
          ['sent', a.totalSent.toFixed(8)],
          ['unconfirmed', a.unconfirmedBalance.toFixed(8)],
          ['transactions', `${a.txApperances} confirmed, ${a.unconfirmedTxApperances} in the mempool`],
        ]),
      ),
      section('Transactions (newest first)', h('ol', { class: 'txs' }, ...a.transactions.slice(0, 500).map((t) => h('li', {}, txLink(t))))),
    );
  };
  await draw();
  // New blocks and mempool changes may touch the address: read it again (the index is exact).
  ctx.live.on((p) => {
    if (p.node === ctx.node && (p.type === 'new-blocks' || p.type === 'mempool')) void draw().catch(() => {});
  });
}
