// A miner's malformed lines through a real cs-bridge process in front of a real cs-pool on real
// csd: the bridge answers each with error 20 itself and never forwards it, so the pool, set here
// to ban an address at its first cut connection (-banmalformed=1) and not told the bridge's
// address, never cuts or bans anything; the same miner's well-formed lines, and every other miner
// behind the bridge, mine on.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import { externalAddress } from '../../cs-pool/test/pool-harness.ts';
import { StratumClient } from '../../cs-pool/test/stratum-client.ts';
import { BridgeProcess, type Chain, eventually, fundedAddress, startChain } from './bridge-harness.ts';

let chain: Chain;
let bridge: BridgeProcess;
const sockets: (Socket | StratumClient)[] = [];

before(async () => {
  chain = await startChain(['-banmalformed=1']);
  const opoi = await fundedAddress(chain, 5);
  bridge = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoi.address, OPOI_STAKE_UTXO: opoi.utxo });
  await bridge.start();
});

after(async () => {
  for (const s of sockets) s instanceof StratumClient ? s.close() : s.destroy();
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

async function miner(worker: string): Promise<{ c: StratumClient; login: string }> {
  const c = await StratumClient.connect(bridge.stratumPort);
  sockets.push(c);
  await c.subscribe();
  const login = `${externalAddress()}.${worker}`;
  assert.equal((await c.authorize(login)).result, true);
  return { c, login };
}

async function share(m: { c: StratumClient; login: string }): Promise<void> {
  assert.deepEqual(await m.c.submit(m.c.solve(REGTEST.equihash, false, m.login).params), { result: true, error: null });
}

test('malformed lines are answered by the bridge and never reach the pool; every miner behind it mines on', async () => {
  const steady = await miner('steady');
  const raw = await new Promise<Socket>((resolve) => {
    const s = connect({ host: '127.0.0.1', port: bridge.stratumPort }, () => resolve(s));
  });
  sockets.push(raw);
  raw.setEncoding('utf8');
  let received = '';
  raw.on('data', (d: string) => (received += d));
  const answers = () =>
    received
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: unknown; result: unknown; error: [number, string, null] | null });
  const bad = [
    'garbage',
    '{"id":2,"method":"mining.subscribe","params":"x"}',
    '[]',
    `{"id":3,"method":"mining.submit","params":["${'f'.repeat(12_000)}"]}`,
  ];
  for (let round = 0; round < 3; round++) raw.write(bad.map((l) => `${l}\n`).join(''));
  await eventually(async () => (answers().length >= 3 * bad.length ? true : undefined), "the bridge's answers");
  for (const a of answers()) {
    assert.equal(a.error?.[0], 20);
    assert.match(a.error![1], /^malformed line: /);
  }
  assert.deepEqual(
    answers()
      .slice(0, bad.length)
      .map((a) => a.id),
    [null, 2, null, 3],
  );
  // The same connection, still open, speaks to the pool when it speaks properly.
  raw.write('{"id":10,"method":"mining.subscribe","params":["raw/1",null,"127.0.0.1",3333]}\n');
  await eventually(async () => (answers().some((a) => a.id === 10) ? true : undefined), "the pool's answer to subscribe");
  const subscribed = answers().find((a) => a.id === 10)!;
  assert.equal(subscribed.error, null);
  assert.equal((subscribed.result as string[]).length, 2);

  await share(steady);
  await share(await miner('newcomer'));
  assert.doesNotMatch(chain.pool.output, /connection cut|IP banned/, 'the pool never saw a malformed line');
});
