// One address, from the node's address index (REST /rest/address, paged newest first), kept
// current from the live feed: a change draws the first page again, "older" reads the next one.
import type { RestAddress } from '@cs/client';
import type { Ctx } from '../api.ts';
import { facts, h, section, txLink } from '../dom.ts';

/** The node's default page size (docs/rest.md), asked for explicitly so pages line up. */
const PAGE = 50;

export async function addressPage(ctx: Ctx, view: HTMLElement, address: string): Promise<void> {
  const page = (from: number) => ctx.rest<RestAddress>(`address/${address}.json?from=${from}&to=${from + PAGE}`);
  const draw = async () => {
    const a = await page(0);
    const list = h('ol', { class: 'txs' }, ...a.transactions.map((t) => h('li', {}, txLink(t))));
    const older = h('button', { type: 'button', id: 'older' }, 'older transactions');
    const caption = h('p', { class: 'note' });
    let shown = a.transactions.length;
    const update = () => {
      caption.textContent = `${shown} of ${a.totalItems}`;
      older.hidden = shown >= a.totalItems;
    };
    older.addEventListener('click', () => {
      void page(shown).then((next) => {
        list.append(...next.transactions.map((t) => h('li', {}, txLink(t))));
        shown += next.transactions.length;
        update();
      });
    });
    update();
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
      section('Transactions (newest first)', list, caption, older),
    );
  };
  await draw();
  // New blocks and mempool changes may touch the address: read it again (the index is exact).
  ctx.live.on((p) => {
    if (p.node === ctx.node && (p.type === 'new-blocks' || p.type === 'mempool')) void draw().catch(() => {});
  });
}
