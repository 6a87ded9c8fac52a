// kill -9 of the bridge at every stage of one request, on real csd and cs-pool: while assigned
// (before the miner answers), then right after each node call whose result was not yet recorded
// (COMMIT sent, REVEAL sent, content published, payout claimed, miner payment recorded but not
// broadcast). Each restart picks up where the chain and the store say; the answer is published
// once and the miner is paid its share exactly once. This bridge follows the node by polling only
// (no CSD_WS_URL), the fallback when the WebSocket is missing.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { amountFromValue } from '@cs/runtime/amount';
import { externalAddress, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import { BridgeProcess, type Chain, OpoiMiner, assertPaidOnceAfterRestart, eventually, fundedAddress, startChain } from './bridge-harness.ts';

let chain: Chain;
let bridge: BridgeProcess;
let opoiAddress: string;
const miners: OpoiMiner[] = [];

interface ChainRequest {
  status: string;
  commits: { miner: string; revealed: boolean }[];
  commit_window_closed: boolean;
  winner: string | null;
  winner_amount: number | null;
}

before(async () => {
  chain = await startChain();
  const opoi = await fundedAddress(chain, 5);
  opoiAddress = opoi.address;
  bridge = await BridgeProcess.create(chain, {
    OPOI_ADDRESSES: opoiAddress,
    OPOI_STAKE_UTXO: opoi.utxo,
    POOL_FEE_PERCENT: '2.5',
    MIN_PAYOUT: '0.001',
    CSD_WS_URL: '',
  });
  await bridge.start();
  await eventually(async () => (bridge.output.includes('stake sent') ? true : undefined), 'the STAKE');
  await chain.mine(1);
});

after(async () => {
  for (const m of miners) m.close();
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

async function stageOf(id: string): Promise<string | undefined> {
  const r = await bridge.api<{ stage: string }>(`/svc/opoi/submissions/${id}`).catch(() => null);
  return r?.status === 200 ? r.body.stage : undefined;
}

/** Waits for the bridge to kill itself at `point`, then starts it again with the next crash point. */
async function crashedAt(point: string, next: string | null): Promise<void> {
  assert.equal(await bridge.exited(), 'SIGKILL', `the bridge died at ${point}`);
  await bridge.start(next ? { CS_BRIDGE_CRASH_AT: next } : {});
}

async function mineUntil(id: string, done: (r: ChainRequest) => boolean): Promise<void> {
  for (let i = 0; i < 60 && !done(await chain.node.call<ChainRequest>('getopoirequest', id)); i++) await chain.mine(1);
}

test('kill -9 at every stage loses nothing and pays nobody twice', async () => {
  const wallet = externalAddress();
  const login = `${wallet}.rig`;
  let miner = await OpoiMiner.connect(bridge.stratumPort, login);
  miners.push(miner);
  const prompt = 'Crash?';
  const answer = 'Still here.';
  const id = randomUUID();
  const requester = (await fundedAddress(chain, 1)).address;
  await chain.node.call('submitopoirequest', id, 'tiny', createHash('sha256').update(prompt).digest('hex'), 50, 0.04, requester);
  await chain.mine(1);
  assert.equal((await bridge.postPrompt(id, prompt)).status, 200);
  assert.equal((await miner.nextAssignment()).requestId, id);

  // Killed while assigned: the prompt and the request survive, and the request is assigned again.
  await bridge.stop('SIGKILL');
  await bridge.start({ CS_BRIDGE_CRASH_AT: 'after-commit-sent' });
  miner = await OpoiMiner.connect(bridge.stratumPort, login);
  miners.push(miner);
  assert.equal((await miner.nextAssignment()).requestId, id, 'reassigned after the restart');
  assert.equal((await miner.answer(id, answer, 3)).error, null);

  await crashedAt('after-commit-sent', 'after-reveal-sent');
  // The COMMIT sent before the crash confirms; the bridge adopts it instead of committing again.
  await chain.mine(1);
  await eventually(async () => ((await stageOf(id)) === 'committed' ? true : undefined), 'the COMMIT adopted');
  await mineUntil(id, (r) => r.commit_window_closed);

  await crashedAt('after-reveal-sent', 'after-publish');
  await chain.mine(1);
  await crashedAt('after-publish', 'after-claim-sent');
  await eventually(async () => ((await stageOf(id)) === 'published' ? true : undefined), 'published again after the restart');
  await mineUntil(id, (r) => r.status !== 'PENDING');

  await crashedAt('after-claim-sent', 'after-payment-record');
  await chain.mine(1);
  await crashedAt('after-payment-record', null);
  await eventually(async () => (bridge.output.includes('miner payment broadcast') ? true : undefined), 'the recorded payment broadcast');
  await chain.mine(1);

  const r = await chain.node.call<ChainRequest>('getopoirequest', id);
  assert.deepEqual([r.status, r.winner, r.commits.length], ['FULFILLED', opoiAddress, 1], 'one commit of the bridge, and it won');
  const content = await chain.node.call<{ content_hex: string }>('getopoicontent', id, 'RESPONSE');
  assert.equal(Buffer.from(content.content_hex, 'hex').toString(), answer);
  const expected = (amountFromValue(r.winner_amount!) * 9750n) / 10000n;
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), expected, 'the miner got its share');

  await assertPaidOnceAfterRestart(chain, bridge, wallet, expected);
  assert.equal(await stageOf(id), 'paid');
});
