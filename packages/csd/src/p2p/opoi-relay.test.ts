// Published OPoI content between three in-process networks over loopback (A - B - C): it is
// relayed only by nodes whose store accepted it, so content B cannot check never reaches C.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import pino from 'pino';
import { openHarness, type Harness } from '../../test/chain-harness.ts';
import { Mempool } from '../mempool/mempool.ts';
import { Network } from './network.ts';
import type { OpoiContentSink } from './opoi-content.ts';

/** A store that knows the revealed response hash (SHA-256 of the content) of some requests. */
class HashCheckingStore implements OpoiContentSink {
  readonly revealed = new Map<string, string>();
  readonly stored: string[] = [];
  accept(requestId: Uint8Array, content: Uint8Array): boolean {
    const expected = this.revealed.get(Buffer.from(requestId).toString('hex'));
    if (expected !== createHash('sha256').update(content).digest('hex')) return false;
    this.stored.push(Buffer.from(content).toString());
    return true;
  }
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('published OPoI content travels only through nodes that could check it', async () => {
  const harnesses: Harness[] = [];
  const networks: Network[] = [];
  const node = async (store: OpoiContentSink, addnode: readonly string[]) => {
    const h = await openHarness();
    harnesses.push(h);
    const network = new Network({
      chain: h.chain,
      mempool: new Mempool({ chain: h.chain }),
      params: h.chain.params,
      log: pino({ level: process.env.P2P_LOG ?? 'silent' }),
      now: () => Math.floor(Date.now() / 1000),
      dataDir: h.dir,
      opoi: store,
      options: {
        listen: true,
        port: 0,
        bind: ['127.0.0.1'],
        connect: [],
        addnode,
        seednode: [],
        maxconnections: 125,
        whitelist: [],
        whitelistrelay: true,
        whitelistforcerelay: false,
        peertimeout: 60,
        bantime: 86400,
      },
    });
    await network.start();
    networks.push(network);
    return network;
  };
  try {
    const stores = [new HashCheckingStore(), new HashCheckingStore(), new HashCheckingStore()];
    const a = await node(stores[0], []);
    const c = await node(stores[2], []);
    const at = (n: Network) => `127.0.0.1:${n.localAddresses[0].port}`;
    const b = await node(stores[1], [at(a), at(c)]);
    await until('b is connected to a and c', () => b.connectionCount === 2 && a.connectionCount === 1 && c.connectionCount === 1);

    const checked = Buffer.alloc(16, 1);
    const unchecked = Buffer.alloc(16, 2);
    for (const s of [stores[1], stores[2]]) s.revealed.set(checked.toString('hex'), sha('answer one'));
    // Only c knows the second request's hash: b must not pass its content on.
    stores[2].revealed.set(unchecked.toString('hex'), sha('answer two'));
    a.publishOpoiContent(unchecked, Buffer.from('answer two'));
    a.publishOpoiContent(checked, Buffer.from('answer one'));
    await until('the checked content reaches c', () => stores[2].stored.length > 0);
    // Messages between two peers keep their order: the unchecked content, sent first, was refused by b.
    assert.deepEqual(stores[1].stored, ['answer one']);
    assert.deepEqual(stores[2].stored, ['answer one']);
    // Content that does not match its hash is not accepted either.
    a.publishOpoiContent(checked, Buffer.from('a forged answer'));
    stores[1].revealed.set(Buffer.alloc(16, 3).toString('hex'), sha('answer three'));
    stores[2].revealed.set(Buffer.alloc(16, 3).toString('hex'), sha('answer three'));
    a.publishOpoiContent(Buffer.alloc(16, 3), Buffer.from('answer three'));
    await until('the third content reaches c', () => stores[2].stored.length > 1);
    assert.deepEqual(stores[2].stored, ['answer one', 'answer three']);
  } finally {
    for (const n of networks) await n.stop();
    for (const h of harnesses) await h.close();
  }
});
