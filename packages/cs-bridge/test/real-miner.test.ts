// The acceptance run with every real program: csd, cs-pool, cs-bridge and cs-miner (embedded
// llama.cpp engine on the generated tiny model) on loopback. The miner's shares go through the
// bridge and are credited to its wallet at the pool; a request's prompt reaches the miner, its
// answer goes on chain (COMMIT, REVEAL), is published, and the miner's wallet is paid its share.
// The miner finds regtest blocks of its own meanwhile, so the test waits for stages "at or past".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { amountFromValue } from '@cs/runtime/amount';
import { externalAddress, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import { tinyLlamaGguf } from '@cs/miner/gguf';
import { MinerProcess } from '../../cs-miner/test/miner-process.ts';
import { BridgeProcess, type Chain, driveToPaid, eventually, fundedAddress, reachStage, startChain, submitRequest } from './bridge-harness.ts';

let chain: Chain;
let bridge: BridgeProcess;
let miner: MinerProcess | null = null;
let opoiAddress: string;
const dir = mkdtempSync(join(tmpdir(), 'cs-bridge-miner-'));

before(async () => {
  chain = await startChain();
  const opoi = await fundedAddress(chain, 5);
  opoiAddress = opoi.address;
  bridge = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoiAddress, OPOI_STAKE_UTXO: opoi.utxo, POOL_FEE_PERCENT: '5', MIN_PAYOUT: '0.001' });
  await bridge.start();
  await eventually(async () => (bridge.output.includes('stake sent') ? true : undefined), 'the STAKE');
  await chain.mine(1);
  await eventually(async () => ((await bridge.api('/healthz')).status === 200 ? true : undefined), 'an active stake');
});

after(async () => {
  await miner?.stop();
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('cs-miner through cs-bridge: shares credited at the pool, an OPoI request answered by the embedded engine and paid', async () => {
  const model = join(dir, 'tiny.gguf');
  writeFileSync(model, tinyLlamaGguf(7));
  const wallet = externalAddress();
  miner = new MinerProcess([
    `-pool=stratum+tcp://127.0.0.1:${bridge.stratumPort}`,
    `-user=${wallet}.gpu0`,
    '-threads=1',
    '-algo=48_5',
    `-model=tiny=llama:${model}`,
    '-opoi-max-tokens=16',
    '-llama-threads=1',
  ]);
  await eventually(
    async () => {
      const workers = await chain.pool.api<{ worker: string; valid: number }[]>(`/api/user/${wallet}/workers`);
      return (workers.find((w) => w.worker === 'gpu0')?.valid ?? 0) > 0 ? true : undefined;
    },
    "the miner's shares credited to its wallet at the pool",
    120_000,
  );
  await eventually(
    async () => ((await bridge.api<{ opoi_miners: number }>('/healthz')).body.opoi_miners === 1 ? true : undefined),
    'the OPoI announcement',
  );

  const prompt = 'Once upon a time';
  const id = await submitRequest(chain, prompt, 8);
  await chain.mine(1);
  assert.equal((await bridge.postPrompt(id, prompt)).status, 200);
  await reachStage(bridge, id, 'received');
  const sub = await bridge.api<{ miner: string; token_count: number; response_hex: string }>(`/svc/opoi/submissions/${id}`);
  assert.equal(sub.body.miner, `${wallet}.gpu0`);
  assert.ok(sub.body.token_count >= 1 && sub.body.token_count <= 8, `token_count ${sub.body.token_count} within max_tokens`);

  const resolved = await driveToPaid(chain, bridge, id);
  assert.deepEqual([resolved.status, resolved.winner], ['FULFILLED', opoiAddress]);
  const content = await chain.node.call<{ content_hex: string }>('getopoicontent', id, 'RESPONSE');
  assert.equal(content.content_hex, sub.body.response_hex, "the published content is the miner's answer");
  await eventually(async () => (bridge.output.includes('miner payment broadcast') ? true : undefined), 'the miner payment');
  await chain.mine(1);
  const expected = (amountFromValue(resolved.winner_amount!) * 9500n) / 10000n;
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), expected, "the miner's wallet got the winner amount minus 5%");
});
