// A VERIFIABLE request end to end through two real cs-bridge processes on real csd and cs-pool,
// miners scripted over the real @cs/stratum messages: the manifest registered with `cs-bridge
// manifest`, both bridges staking it (OPOI_SERVES); `cs-bridge ask -verifiable` sends the request
// to bridge A, which routes it only to miners holding the file, has the first answer checked by a
// second miner, refuses it when found invalid and reassigns it, has the next one checked by a
// third (valid), commits, reveals and publishes it; bridge B, drawn as the auditor,
// routes the audit to its miner, commits and reveals the verdict; the request is FULFILLED and
// each bridge pays its miner's share exactly once, the cheat nothing. ask prints every step. Then
// a cheat's answer, committed unchecked (no second miner), is found invalid by B: REJECTED, A's collateral forfeited, B's miner
// paid its share of it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { toHex, verifiableResponseHash } from '@cs/consensus';
import { amountFromValue } from '@cs/runtime/amount';
import type { OpoiModelFile } from '@cs/stratum';
import { externalAddress, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import { BRIDGE_BIN, BridgeProcess, type Chain, OpoiMiner, eventually, fundedAddress, mineUntil, reachStage, startChain } from './bridge-harness.ts';
import { MANIFEST_ID, command, logged, modelFile, servingBridge } from './verifiable-harness.ts';

let chain: Chain;
let a: { bridge: BridgeProcess; address: string };
let b: { bridge: BridgeProcess; address: string };
let file: OpoiModelFile;
let registered: { exit: number | string; output: string };
const miners: OpoiMiner[] = [];

interface Payout {
  status: string;
  payout_status: string;
  payout_txid: string | null;
  payout_outputs: { address: string | null; amount: number }[];
  winner_amount: number | null;
  audit: { commit_close: number; reveal_deadline: number; outcome: string | null } | null;
  commits: { miner: string; response_hash?: string }[];
}

before(async () => {
  chain = await startChain();
  // The manifest first: a STAKE may serve only confirmed manifests. The command reads the node's credentials from an env file.
  const gguf = modelFile();
  file = gguf.file;
  const env = await BridgeProcess.create(chain, { OPOI_ADDRESSES: chain.payTo });
  registered = await command(env.envFile, ['manifest', `-modelid=${MANIFEST_ID}`, '-bos=never', gguf.path]);
  await env.cleanup();
  await chain.mine(1);
  a = await servingBridge(chain);
  b = await servingBridge(chain);
  await chain.mine(1);
});

after(async () => {
  for (const m of miners) m.close();
  await a?.bridge.cleanup();
  await b?.bridge.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

test('cs-bridge manifest registers the GGUF file; the bridges stake serving it (OPOI_SERVES)', async () => {
  assert.equal(registered.exit, 0, registered.output);
  assert.match(registered.output, new RegExp(`SHA-256 ${file.sha256}, ${file.size} bytes`));
  assert.ok(registered.output.includes(`MANIFEST ${MANIFEST_ID} broadcast`), registered.output);
  const m = await chain.node.call<{ gguf_sha256: string; gguf_size: number; bos: string; tolerance: number }>('getmodelmanifest', MANIFEST_ID);
  assert.deepEqual([m.gguf_sha256, m.gguf_size, m.bos, m.tolerance], [file.sha256, file.size, 'never', 4096]);
  for (const x of [a, b]) {
    const stake = await chain.node.call<{ status: string; serves: string[] }>('getopoistake', x.address);
    assert.deepEqual([stake.status, stake.serves], ['ACTIVE', [MANIFEST_ID]]);
    await eventually(async () => ((await x.bridge.api('/healthz')).status === 200 ? true : undefined), 'an active stake');
  }
});

test('a VERIFIABLE request: routed to file holders only, a cheat refused by the check, published, audited, paid once', async () => {
  const [cheat, honest, second, plain, auditor] = [externalAddress(), externalAddress(), externalAddress(), externalAddress(), externalAddress()];
  const held = { files: [file], audits: true };
  const cheatMiner = await OpoiMiner.connect(a.bridge.stratumPort, `${cheat}.rig`, ['tiny'], true, held);
  const honestMiner = await OpoiMiner.connect(a.bridge.stratumPort, `${honest}.rig`, ['tiny'], true, held);
  const secondMiner = await OpoiMiner.connect(a.bridge.stratumPort, `${second}.rig`, ['tiny'], true, held);
  const plainMiner = await OpoiMiner.connect(a.bridge.stratumPort, `${plain}.rig`, ['tiny', MANIFEST_ID]);
  const auditorMiner = await OpoiMiner.connect(b.bridge.stratumPort, `${auditor}.rig`, ['tiny'], true, held);
  miners.push(cheatMiner, honestMiner, secondMiner, plainMiner, auditorMiner);

  const ask = spawn(
    process.execPath,
    [
      BRIDGE_BIN,
      'ask',
      `-env=${a.bridge.envFile}`,
      '-pollms=200',
      '-verifiable',
      `-model=${MANIFEST_ID}`,
      '-maxtokens=8',
      '-payment=0.02',
      '-quorum=1',
      '-auditfee=0.001',
      'Capital',
      'of',
      'France?',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  ask.stdout.on('data', (d: Buffer) => (output += d.toString()));
  ask.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | string>((r) => ask.once('exit', (code, signal) => r(code ?? signal ?? 0)));
  const id = await eventually(async () => /REQUEST ([0-9a-f-]{36}) broadcast/.exec(output)?.[1], `the REQUEST line (${output})`);
  await eventually(async () => (output.includes('Waiting for the REQUEST') ? true : undefined), 'ask to wait');
  await chain.mine(1);

  // The first file holder gets it, with the manifest; the miner without the file never does.
  const first = await cheatMiner.nextAssignment();
  assert.deepEqual([first.requestId, first.taskType, first.model, first.manifest?.ggufSha256], [id, 'VERIFIABLE', MANIFEST_ID, file.sha256]);
  assert.equal(Buffer.from(first.prompt).toString(), 'Capital of France?');
  const missing = await cheatMiner.answer(id, 'Lyon.', 2);
  assert.match(String(missing.error?.[1]), /needs token_ids/, 'a VERIFIABLE answer without token ids is refused');
  assert.equal((await cheatMiner.answerVerifiable(id, 'Lyon.', [7, 8])).error, null);

  // Checked by another file holder (another wallet, the least busy), found invalid: not committed, reassigned.
  const check = await honestMiner.nextAudit();
  assert.deepEqual([check.requestId, check.tokenIds, Buffer.from(check.text).toString(), check.maxTokens], [id, [7, 8], 'Lyon.', 8]);
  assert.equal((await honestMiner.verdict(check, 'invalid', 0)).error, null);
  const reassigned = await honestMiner.nextAssignment();
  assert.equal(reassigned.requestId, id, 'reassigned to another file holder, never to the cheat again');
  assert.equal((await honestMiner.answerVerifiable(id, ' Paris.', [5, 6, 7])).error, null);
  // Checked by the third file holder: neither the answering wallet nor the cheat checks it.
  const recheck = await secondMiner.nextAudit();
  assert.deepEqual([recheck.requestId, recheck.tokenIds, Buffer.from(recheck.text).toString()], [id, [5, 6, 7], ' Paris.']);
  assert.equal((await secondMiner.verdict(recheck, 'valid')).error, null);
  assert.equal(plainMiner.opoiLines(), 0, 'the miner without the file got no VERIFIABLE work and no audit');
  assert.equal(cheatMiner.audits().length, 0, 'the cheat is not asked to check the answer that replaced its own');
  assert.equal(secondMiner.assignments().length, 0);

  const hash = toHex(verifiableResponseHash([5, 6, 7], Buffer.from(' Paris.')));
  await reachStage(a.bridge, id, 'committed');
  await chain.mine(1);
  await mineUntil(chain, id, (r) => r.commit_window_closed, 'the end of the commit window');
  await reachStage(a.bridge, id, 'revealed');
  await chain.mine(1);
  const revealed = await chain.node.call<Payout>('getopoirequest', id);
  assert.equal(revealed.commits[0].response_hash, hash, 'the COMMIT binds verifiableResponseHash(ids, text)');
  await mineUntil(chain, id, (r) => r.status !== 'PENDING', 'the resolution');
  await reachStage(a.bridge, id, 'published');
  await chain.mine(2);
  const audit = await chain.node.call<Payout>('getopoirequest', id);
  assert.equal(audit.status, 'AUDITING');

  // Bridge B was drawn: its miner replays the published answer; the verdict is committed, then revealed.
  const task = await auditorMiner.nextAudit();
  assert.deepEqual(
    [task.requestId, task.tokenIds, Buffer.from(task.text).toString(), Buffer.from(task.prompt).toString()],
    [id, [5, 6, 7], ' Paris.', 'Capital of France?'],
  );
  const pending = await b.bridge.api<{ kind: string; request_id: string; stage: string; assigned_to: string }[]>('/svc/opoi/pending');
  assert.deepEqual(
    pending.body.filter((p) => p.kind === 'audit').map((p) => [p.request_id, p.stage, p.assigned_to]),
    [[id, 'assigned', `${auditor}.rig`]],
  );
  assert.equal((await auditorMiner.verdict(task, 'valid')).error, null);
  await logged(b.bridge, 'VERDICT_COMMIT sent');
  await chain.mine(1);
  for (let h = await chain.node.call<number>('getblockcount'); h < audit.audit!.commit_close; h++) await chain.mine(1);
  await logged(b.bridge, 'VERDICT_REVEAL sent');
  await chain.mine(1);
  const settled = await mineUntil(chain, id, (r) => r.status !== 'AUDITING', 'the outcome');
  assert.equal(settled.status, 'FULFILLED');
  await reachStage(a.bridge, id, 'claimed');
  await chain.mine(1);
  await reachStage(a.bridge, id, 'paid');
  await logged(b.bridge, "auditing miner's share credited");
  await logged(a.bridge, 'miner payment broadcast');
  await logged(b.bridge, 'miner payment broadcast');
  await chain.mine(1);

  const paid = await chain.node.call<Payout>('getopoirequest', id);
  // The check is paid what a round-0 auditor earns, the audit fee less the cut, out of the answer's share.
  const checkShare = (amountFromValue(0.001) * 9800n) / 10000n;
  const winnerShare = (amountFromValue(paid.winner_amount!) * 9800n) / 10000n - checkShare;
  const auditorOutput = paid.payout_outputs.find((o) => o.address === b.address)!;
  const auditorShare = (amountFromValue(auditorOutput.amount) * 9800n) / 10000n;
  assert.equal(auditorOutput.amount, 0.001, 'the round-0 auditor earns its fee');
  assert.equal(BigInt(await receivedTotal(chain.node, honest)), winnerShare, "the honest miner got the winner's pay less 2% and the check");
  assert.equal(BigInt(await receivedTotal(chain.node, second)), checkShare, 'the checking miner got the audit fee less 2%');
  assert.equal(BigInt(await receivedTotal(chain.node, auditor)), auditorShare, "the auditing miner got the auditor's pay less 2%");
  assert.equal(BigInt(await receivedTotal(chain.node, cheat)), 0n, 'the cheat got nothing');
  const sub = await a.bridge.api<{ response_hash: string; token_ids: number[]; publish_txid: string; check: unknown }>(`/svc/opoi/submissions/${id}`);
  assert.deepEqual([sub.body.response_hash, sub.body.token_ids, sub.body.check], [hash, [5, 6, 7], { miner: `${second}.rig`, verdict: 'valid' }]);

  assert.equal(await exit, 0, output);
  for (const step of [
    `VERIFIABLE under manifest ${MANIFEST_ID}: 1 auditor(s), audit fee 0.001 each`,
    `COMMIT by ${a.address}`,
    `winner ${a.address}`,
    'published on chain: PUBLISH',
    `auditor drawn: ${b.address} (round 0)`,
    `verdict committed by ${b.address}`,
    `verdict revealed by ${b.address}: valid`,
    'outcome: valid (FULFILLED)',
    `payout ${paid.payout_txid}`,
    `pays ${b.address} 0.001`,
    'Answer:\n Paris.\n',
  ]) {
    assert.ok(output.includes(step), `ask printed "${step}":\n${output}`);
  }

  // More blocks and ticks: nothing is paid twice.
  await chain.mine(2);
  const height = await chain.node.call<number>('getblockcount');
  for (const x of [a, b]) {
    await eventually(
      async () => ((await x.bridge.api<{ node_height: number }>('/healthz')).body.node_height === height ? true : undefined),
      'a tick at the tip',
    );
  }
  // A second payment would have been broadcast by that tick: a block confirms it, if there is one.
  await chain.mine(1);
  assert.equal(BigInt(await receivedTotal(chain.node, honest)), winnerShare, 'the answer paid once');
  assert.equal(BigInt(await receivedTotal(chain.node, auditor)), auditorShare, 'the audit paid once');
});

test('an answer the drawn auditor finds invalid: REJECTED, its miner unpaid, the auditing miner paid its share of the forfeited collateral', async () => {
  const auditorMiner = miners.at(-1)!;
  for (const m of miners.splice(0, miners.length - 1)) m.close();
  const cheat = externalAddress();
  // The only file holder behind bridge A: nobody checks its answer, so it is committed unchecked.
  const cheatMiner = await OpoiMiner.connect(a.bridge.stratumPort, `${cheat}.rig`, ['tiny'], true, { files: [file], audits: true });
  miners.push(cheatMiner);
  const id = randomUUID();
  const prompt = 'Capital of Italy?';
  const requester = (await fundedAddress(chain, 2)).address;
  const sha = createHash('sha256').update(prompt).digest('hex');
  await chain.node.call('submitopoirequest', id, MANIFEST_ID, sha, 8, 0.02, requester, 0, 'VERIFIABLE', 0, '', a.address, 1, 0.001);
  await chain.mine(1);
  assert.equal((await a.bridge.postPrompt(id, prompt)).status, 200);
  assert.equal((await cheatMiner.nextAssignment()).requestId, id);
  assert.equal((await cheatMiner.answerVerifiable(id, ' Milan.', [9, 9])).error, null);
  await logged(a.bridge, 'committing it unchecked');
  await reachStage(a.bridge, id, 'committed');
  await chain.mine(1);
  await mineUntil(chain, id, (r) => r.commit_window_closed, 'the end of the commit window');
  await reachStage(a.bridge, id, 'revealed');
  await chain.mine(1);
  await mineUntil(chain, id, (r) => r.status !== 'PENDING', 'the resolution');
  await reachStage(a.bridge, id, 'published');
  await chain.mine(2);
  const task = await auditorMiner.nextAudit();
  assert.equal(task.requestId, id);
  assert.equal((await auditorMiner.verdict(task, 'invalid', 0)).error, null);
  await logged(b.bridge, 'VERDICT_COMMIT sent', 2);
  await chain.mine(1);
  const audit = await chain.node.call<Payout>('getopoirequest', id);
  for (let h = await chain.node.call<number>('getblockcount'); h < audit.audit!.commit_close; h++) await chain.mine(1);
  await logged(b.bridge, 'VERDICT_REVEAL sent', 2);
  await chain.mine(1);
  const settled = await mineUntil(chain, id, (r) => r.status !== 'AUDITING', 'the outcome');
  assert.equal(settled.status, 'REJECTED');
  await eventually(async () => {
    const r = await a.bridge.api<{ stage: string; note: string }>(`/svc/opoi/submissions/${id}`);
    return r.body.stage === 'rejected' ? r.body : undefined;
  }, 'the request rejected in bridge A');
  // Nobody else claims a rejected payout here: the auditing bridge does, for its share.
  await eventually(
    async () => ((await chain.node.call<{ payout_status: string }>('getopoirequest', id)).payout_status === 'pending' ? true : undefined),
    'the payout claimed',
  );
  await chain.mine(1);
  await logged(b.bridge, "auditing miner's share credited", 2);
  await logged(b.bridge, 'miner payment broadcast', 2);
  await chain.mine(1);
  const paid = await chain.node.call<Payout>('getopoirequest', id);
  const earned = amountFromValue(paid.payout_outputs.find((o) => o.address === b.address)!.amount);
  assert.equal(earned, 50_000_000n, "half the forfeited collateral (regtest's 1-coin stake) for the one auditor that said invalid");
  const before = (amountFromValue(0.001) * 9800n) / 10000n;
  assert.equal(BigInt(await receivedTotal(chain.node, auditorMiner.login.split('.')[0])), before + (earned * 9800n) / 10000n);
  assert.equal(BigInt(await receivedTotal(chain.node, cheat)), 0n, 'the cheat is not paid');
  // The payout spent the forfeited collateral, and the stake went with it.
  await assert.rejects(chain.node.call('getopoistake', a.address), /no stake/);
});
