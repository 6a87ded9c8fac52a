// A drawn auditor's bridge killed with kill -9 right after its VERDICT_COMMIT was sent, and again
// right after its VERDICT_REVEAL was sent, on real csd and cs-pool: the salt stored before the
// commit lets the restarted bridge reveal what it committed, in the window a `cs-bridge challenge`
// extended; the payout pays the auditor its fee and its share of the bond, and the bridge credits
// its miner that amount less its cut exactly once. The executor is a staker driven over RPC.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { toHex, verifiableResponseHash } from '@cs/consensus';
import { amountFromValue } from '@cs/runtime/amount';
import { externalAddress, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import { type BridgeProcess, type Chain, OpoiMiner, assertPaidOnceAfterRestart, fundedAddress, mineUntil, startChain } from './bridge-harness.ts';
import { MANIFEST_ID, command, logged, modelFile, servingBridge } from './verifiable-harness.ts';

let chain: Chain;
let auditing: { bridge: BridgeProcess; address: string };
let executor: string;
const miners: OpoiMiner[] = [];
const gguf = modelFile();

interface ChainRequest {
  status: string;
  commit_window_closed: boolean;
  commits: { commitment: string }[];
  payout_outputs: { address: string | null; amount: number }[];
  audit: {
    commit_close: number;
    reveal_deadline: number;
    outcome: string | null;
    auditors: { address: string; committed: boolean; verdict: string | null }[];
  } | null;
}

before(async () => {
  chain = await startChain();
  const registrant = (await fundedAddress(chain, 1)).address;
  await chain.node.call('registermodelmanifest', MANIFEST_ID, gguf.file.sha256, gguf.file.size, 4096, registrant);
  await chain.mine(1);
  const staker = await fundedAddress(chain, 5);
  executor = staker.address;
  const [txid, vout] = staker.utxo.split(':');
  await chain.node.call('stakeopoi', executor, txid, Number(vout), null, null, [MANIFEST_ID]);
  auditing = await servingBridge(chain, {}, { CS_BRIDGE_CRASH_AT: 'after-verdict-commit-sent' });
  await chain.mine(1);
});

after(async () => {
  for (const m of miners) m.close();
  await auditing?.bridge.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

test('kill -9 between the verdict commit and the reveal still reveals, and the audit is paid exactly once', async () => {
  const { bridge, address } = auditing;
  const wallet = externalAddress();
  let miner = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.audit`, ['tiny'], true, { files: [gguf.file], audits: true });
  miners.push(miner);

  // A VERIFIABLE answer of the RPC-driven executor, published; the bridge's address is the only other server, so it is drawn.
  const id = randomUUID();
  const prompt = 'Two and two?';
  const [tokens, text] = [[4, 2], ' Four.'];
  const requester = (await fundedAddress(chain, 2)).address;
  const sha = createHash('sha256').update(prompt).digest('hex');
  await chain.node.call('submitopoirequest', id, MANIFEST_ID, sha, 8, 0.02, requester, 0, 'VERIFIABLE', 0, '', executor, 1, 0.001);
  await chain.mine(1);
  const hash = toHex(verifiableResponseHash(tokens, Buffer.from(text)));
  const commit = await chain.node.call<{ commitment: string; nonce_hex: string }>(
    'submitopoiresponsecommit',
    id,
    hash,
    executor,
    null,
    tokens.length,
  );
  await chain.mine(1);
  await mineUntil(chain, id, (r) => r.commit_window_closed, 'the end of the commit window');
  await chain.node.call('submitopoiresponse', id, hash, executor, commit.commitment, tokens.length, commit.nonce_hex);
  await mineUntil(chain, id, (r) => r.status === 'PUBLISHING', 'the resolution');
  await chain.node.call('publishopoianswer', id, prompt, text, tokens);
  await chain.mine(2);

  const task = await miner.nextAudit();
  assert.deepEqual(
    [task.requestId, task.tokenIds, Buffer.from(task.text).toString(), Buffer.from(task.prompt).toString()],
    [id, tokens, text, prompt],
  );
  assert.equal((await miner.verdict(task, 'valid')).error, null);
  assert.equal(await bridge.exited(), 'SIGKILL', 'killed right after the VERDICT_COMMIT was sent');

  // A challenge meanwhile: its bond extends the windows and is shared with the valid auditors.
  const challenged = await command(bridge.envFile, ['challenge', '-bond=0.5', id]);
  assert.equal(challenged.exit, 0, challenged.output);
  assert.match(challenged.output, new RegExp(`CHALLENGE of ${id} broadcast: txid [0-9a-f]{64}`));
  assert.match(challenged.output, /bond 0\.5; the second round of auditors is drawn at the end of block \d+/);
  await chain.mine(1);
  const committed = await chain.node.call<ChainRequest>('getopoirequest', id);
  assert.deepEqual(
    committed.audit!.auditors.map((x) => [x.address, x.committed]),
    [[address, true]],
    'the commit sent before the kill confirmed',
  );

  await bridge.start({ CS_BRIDGE_CRASH_AT: 'after-verdict-reveal-sent' });
  miner = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.audit`, ['tiny'], true, { files: [gguf.file], audits: true });
  miners.push(miner);
  for (let h = await chain.node.call<number>('getblockcount'); h < committed.audit!.commit_close; h++) await chain.mine(1);
  assert.equal(await bridge.exited(), 'SIGKILL', 'killed right after the VERDICT_REVEAL was sent');
  await bridge.start();
  await chain.mine(1);
  const revealed = await chain.node.call<ChainRequest>('getopoirequest', id);
  assert.equal(revealed.audit!.auditors[0].verdict, 'valid', 'the verdict committed before the first kill is revealed');
  assert.equal(miner.audits().length, 0, 'the restarted bridge did not audit again');

  const settled = await mineUntil(chain, id, (r) => r.status !== 'AUDITING', 'the outcome');
  assert.equal(settled.status, 'FULFILLED');
  await logged(bridge, 'audit payout claimed');
  await chain.mine(1);
  await logged(bridge, "auditing miner's share credited");
  await logged(bridge, 'miner payment broadcast');
  await chain.mine(1);

  const paid = await chain.node.call<ChainRequest>('getopoirequest', id);
  const earned = paid.payout_outputs.find((o) => o.address === address)!.amount;
  assert.equal(earned, 0.251, 'the round-0 fee and half the bond (one valid auditor)');
  const expected = (amountFromValue(earned) * 9800n) / 10000n;
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), expected, 'the auditing miner is paid its share');

  await assertPaidOnceAfterRestart(chain, bridge, wallet, expected);
  const pending = await bridge.api<{ kind: string }[]>('/svc/opoi/pending');
  assert.equal(pending.body.filter((p) => p.kind === 'audit').length, 0, 'the audit is finished');
});
