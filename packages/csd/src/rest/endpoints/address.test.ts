import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptToAddress } from '@cs/consensus';
import { COIN_VALUE, KEY_SCRIPT, accepted, mine, spend } from '../../../test/mempool-harness.ts';
import { startRestServer, type RestTestServer } from '../../../test/rest-harness.ts';
import { withRpcNode } from '../../../test/rpc-harness.ts';
import { registerBlockchainMethods } from '../../rpc/methods/blockchain.ts';
import { DEFAULT_ADDRESS_PAGE, MAX_ADDRESS_PAGE } from './address.ts';

interface AddressJson {
  address: string;
  balance: number;
  totalReceived: number;
  totalSent: number;
  unconfirmedBalance: number;
  txApperances: number;
  unconfirmedTxApperances: number;
  transactions: string[];
  totalItems: number;
  from: number;
  to: number;
}

async function page(rest: RestTestServer, path: string): Promise<AddressJson> {
  const res = await rest.get(path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.json as AddressJson;
}

async function fails(rest: RestTestServer, path: string, error: string): Promise<void> {
  const res = await rest.get(path);
  assert.equal(res.status, 400, `${path}: ${res.text}`);
  assert.deepEqual(res.json, { error }, path);
}

const totals = ({ transactions: _t, from: _f, to: _to, ...rest }: AddressJson) => rest;

test('/rest/address pages: mempool first, then newest first; totals whatever the page; bad from/to rejected', async () => {
  await withRpcNode(registerBlockchainMethods, async (node) => {
    const { chain, mempool, coin } = node.fixture;
    const address = scriptToAddress(KEY_SCRIPT, node.ctx.params.address);
    const path = `/rest/address/${address}`;
    // Two unconfirmed spends of the key's coins back to the key.
    const first = spend(coin(1), [COIN_VALUE - 10_000n], {}, KEY_SCRIPT);
    const second = spend(coin(2), [COIN_VALUE - 10_000n], {}, KEY_SCRIPT);
    accepted(mempool.accept(first));
    accepted(mempool.accept(second));
    const confirmed: string[] = [];
    let received = 0n;
    for (let h = chain.height; h >= 1; h--) {
      const coinbase = chain.readBlock(chain.atHeight(h)!)!.txs[0];
      confirmed.push(coinbase.txidHex);
      for (const out of coinbase.outputs) if (Buffer.from(out.scriptPubKey).equals(Buffer.from(KEY_SCRIPT))) received += out.value;
    }
    const everything = [second.txidHex, first.txidHex, ...confirmed];
    const rest = await startRestServer(node, { rateLimit: 0 });
    try {
      const all = await page(rest, `${path}?from=0&to=${MAX_ADDRESS_PAGE}`);
      assert.deepEqual(all, {
        address,
        balance: Number(received) / 1e8,
        totalReceived: Number(received) / 1e8,
        totalSent: 0,
        unconfirmedBalance: -20_000 / 1e8,
        txApperances: 110,
        unconfirmedTxApperances: 2,
        transactions: everything,
        totalItems: 112,
        from: 0,
        to: 112,
      });

      // Without parameters: the first page of the default size.
      const first50 = await page(rest, path);
      assert.deepEqual(first50.transactions, everything.slice(0, DEFAULT_ADDRESS_PAGE));
      assert.deepEqual([first50.from, first50.to], [0, DEFAULT_ADDRESS_PAGE]);
      assert.deepEqual(totals(first50), totals(all));
      // `from` alone: a default-sized page from there.
      assert.deepEqual((await page(rest, `${path}?from=100`)).transactions, everything.slice(100));

      // Pages of 30, the first crossing from the mempool into the chain, walk the list once.
      const walked: string[] = [];
      for (let from = 0; from < all.totalItems; from += 30) {
        const p = await page(rest, `${path}?from=${from}&to=${from + 30}`);
        assert.deepEqual(totals(p), totals(all), `totals of page ${from}`);
        assert.deepEqual([p.from, p.to], [from, Math.min(from + 30, 112)]);
        walked.push(...p.transactions);
      }
      assert.deepEqual(walked, everything);
      assert.deepEqual((await page(rest, `${path}?from=1&to=3`)).transactions, [first.txidHex, confirmed[0]]);
      // Past the end: an empty page, `to` equal to `from`.
      const past = await page(rest, `${path}?from=500&to=510`);
      assert.deepEqual([past.transactions, past.from, past.to, past.totalItems], [[], 500, 500, 112]);

      // Mined, the two move to the head of the confirmed side.
      await mine(chain, [first, second]);
      const mined = await page(rest, `${path}?from=0&to=3`);
      assert.deepEqual([mined.unconfirmedTxApperances, mined.txApperances, mined.totalItems], [0, 113, 113]);
      // Last in the block first: the two, then the block's coinbase (which pays the key too).
      const block = chain.readBlock(chain.tip)!;
      assert.deepEqual(mined.transactions, [second.txidHex, first.txidHex, block.txs[0].txidHex]);

      await fails(rest, `${path}?from=-1`, 'Invalid from: -1 (a decimal from 0 to 2147483647)');
      await fails(rest, `${path}?from=abc`, 'Invalid from: abc (a decimal from 0 to 2147483647)');
      await fails(rest, `${path}?from=2147483648`, 'Invalid from: 2147483648 (a decimal from 0 to 2147483647)');
      await fails(rest, `${path}?to=0`, 'Invalid to: 0 (a decimal from 1 to 1000)');
      await fails(rest, `${path}?from=5&to=5`, 'Invalid to: 5 (a decimal from 6 to 1005)');
      await fails(rest, `${path}?from=10&to=4`, 'Invalid to: 4 (a decimal from 11 to 1010)');
      await fails(rest, `${path}?from=0&to=1001`, 'Invalid to: 1001 (a decimal from 1 to 1000)');
      await fails(rest, `${path}?to=1e3`, 'Invalid to: 1e3 (a decimal from 1 to 1000)');
      // The server carries on.
      assert.equal((await page(rest, path)).totalItems, 113);
    } finally {
      await rest.close();
    }
  });
});
