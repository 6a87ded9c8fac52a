// VERIFIABLE work end to end: real cs-miner processes with the embedded engine on generated models,
// against the stratum server standing in for the bridge. An answer carries its token ids and the
// audit of another miner finds it valid; a manifest naming another file is refused; an answer
// changed at one position is found invalid exactly there; a miner started with -corruptanswers
// sends answers the honest miner's audit rejects.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ggufFileIdentity } from '@cs/runtime/file-hash';
import type { OpoiAuditTask, OpoiManifest, OpoiResult } from '@cs/stratum';
import { tinyLlamaGguf } from '../src/gguf/tiny-llama.ts';
import { MinerProcess, runMiner } from './miner-process.ts';
import { TestStratumServer, until } from './test-stratum-server.ts';

const PROMPT = 'Explain in one sentence why the sky is blue.';
const MAX_TOKENS = 24;
let dir: string;
let modelPath: string;
let manifest: OpoiManifest;
let server: TestStratumServer;
let honest: MinerProcess;
let cheat: MinerProcess;

function minerArgs(extra: string[]): string[] {
  return [
    `-pool=stratum+tcp://127.0.0.1:${server.port}`,
    '-user=csrt1qminer.v',
    '-threads=1',
    '-algo=48_5',
    '-llama-threads=1',
    '-llama-context=256',
    ...extra,
  ];
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cs-miner-verifiable-'));
  modelPath = join(dir, 'tiny.gguf');
  writeFileSync(modelPath, tinyLlamaGguf(7));
  const file = await ggufFileIdentity(modelPath);
  manifest = {
    modelId: 'tiny-v1',
    ggufSha256: file.sha256,
    ggufSize: file.size,
    bos: 'metadata',
    parseSpecial: false,
    chatTemplateSha256: null,
    tolerance: 6554,
  };
  server = new TestStratumServer();
  await server.listen();
  // Miner 0 is honest and takes audits; miner 1 corrupts one token of every VERIFIABLE answer.
  honest = new MinerProcess(minerArgs([`-model=tiny=llama:${modelPath}`]));
  await until(() => server.announcements.length === 1, "the honest miner's opoi.subscribe");
  cheat = new MinerProcess(minerArgs([`-model=tiny=llama:${modelPath}`, '-corruptanswers=token', '-noopoi-audits']));
  await until(() => server.announcements.length === 2, "the cheating miner's opoi.subscribe");
});

after(async () => {
  await Promise.all([honest?.stop(), cheat?.stop()]);
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function answer(miner: number, maxTokens = MAX_TOKENS): Promise<OpoiResult> {
  const before = server.results.length;
  const id = server.assign({ model: manifest.modelId, prompt: PROMPT, maxTokens, manifest }, miner);
  await until(() => server.results.length > before, 'the result');
  const r = server.results.at(-1)!;
  assert.equal(r.requestId, id);
  return r;
}

async function audit(task: Omit<OpoiAuditTask, 'auditId' | 'requestId' | 'manifest' | 'prompt' | 'maxTokens'> & Partial<OpoiAuditTask>) {
  const before = server.auditReports.length;
  const full: OpoiAuditTask = {
    auditId: `a-${before}`,
    requestId: randomUUID(),
    manifest,
    prompt: Buffer.from(PROMPT),
    maxTokens: MAX_TOKENS,
    ...task,
  };
  server.audit(full, 0);
  await until(() => server.auditReports.length > before, 'the verdict');
  const report = server.auditReports.at(-1)!;
  assert.equal(report.auditId, full.auditId);
  return report;
}

test('the file identity is announced and printed, with audits taken unless turned off', async () => {
  assert.deepEqual(server.announcements[0].files, [{ sha256: manifest.ggufSha256, size: manifest.ggufSize }]);
  assert.equal(server.announcements[0].audits, true);
  assert.equal(server.announcements[1].audits, false);
  const printed = await runMiner([`-gguf-identity=${modelPath}`]);
  assert.equal(printed.code, 0);
  assert.deepEqual(JSON.parse(printed.stdout), { file: modelPath, gguf_sha256: manifest.ggufSha256, gguf_size: manifest.ggufSize });
  assert.match(cheat.lines.find((l) => l.level === 'warn' && /CORRUPTING/.test(l.msg))?.msg ?? '', /for demonstrations and tests/);
});

test('a VERIFIABLE answer carries its token ids and the audit of it is valid; the same ids with another text are invalid', async () => {
  const r = await answer(0);
  assert.ok(r.tokenIds !== null && r.tokenIds.length === r.tokenCount && r.tokenCount > 0);
  const valid = await audit({ tokenIds: r.tokenIds, text: r.response });
  assert.equal(valid.verdict, 'valid', valid.reason);
  assert.equal(valid.position, null);
  const again = await answer(0);
  assert.deepEqual(again.tokenIds, r.tokenIds, 'greedy decoding gives the same ids twice');
  const otherText = await audit({ tokenIds: r.tokenIds, text: Buffer.concat([r.response, Buffer.from('!')]) });
  assert.equal(otherText.verdict, 'invalid');
  assert.equal(otherText.position, null, 'a text that is not the ids is invalid without a position');
});

test('an answer changed at one position is invalid exactly there, with the deciding logits', async () => {
  const cheated = await answer(1);
  const honestAnswer = await answer(0);
  assert.ok(cheated.tokenIds && honestAnswer.tokenIds);
  const differs = cheated.tokenIds.findIndex((t, i) => t !== honestAnswer.tokenIds![i]);
  assert.ok(differs >= 0, 'the cheating miner changed a token');
  const report = await audit({ tokenIds: cheated.tokenIds, text: cheated.response });
  assert.equal(report.verdict, 'invalid', report.reason);
  assert.equal(report.position, differs);
  const e = report.evidence!;
  assert.equal(e.claimedToken, cheated.tokenIds[differs]);
  assert.equal(e.argmaxToken, honestAnswer.tokenIds[differs]);
  assert.ok(e.argmaxLogit - e.claimedLogit! > manifest.tolerance / 65536);
});

test('a truncated answer fails its stop check; too many tokens and unknown tokens are invalid without a replay', async () => {
  // The answer to max_tokens 3 is the first 3 tokens of the full answer: claimed as the whole answer to max_tokens 24, it stops too early.
  const r = await answer(0, 3);
  assert.ok(r.tokenIds?.length === 3);
  const full = await audit({ tokenIds: r.tokenIds, text: r.response, maxTokens: 3 });
  assert.equal(full.verdict, 'valid', full.reason);
  const stop = await audit({ tokenIds: r.tokenIds, text: r.response });
  assert.equal(stop.verdict, 'invalid', stop.reason);
  assert.equal(stop.position, 3);
  assert.equal(stop.evidence?.claimedToken, null);
  const unknown = await audit({ tokenIds: [r.tokenIds[0], 99_999], text: Buffer.alloc(0) });
  assert.deepEqual([unknown.verdict, unknown.position], ['invalid', 1]);
});

test('a manifest naming another file, or a chat template, is refused; an audit for a file not held fails', async () => {
  const other = await ggufFileIdentity(
    (() => {
      const p = join(dir, 'other.gguf');
      writeFileSync(p, tinyLlamaGguf(8));
      return p;
    })(),
  );
  const foreign: OpoiManifest = { ...manifest, modelId: 'other', ggufSha256: other.sha256, ggufSize: other.size };
  const before = server.errors.length;
  server.assign({ model: 'other', prompt: PROMPT, maxTokens: 8, manifest: foreign }, 0);
  server.assign(
    { model: 'tiny-t', prompt: PROMPT, maxTokens: 8, manifest: { ...manifest, modelId: 'tiny-t', chatTemplateSha256: 'ab'.repeat(32) } },
    0,
  );
  await until(() => server.errors.length === before + 2, 'the two refusals');
  const [file, template] = server.errors.slice(before);
  assert.equal(file.error, 'model_not_served');
  assert.match(file.message, new RegExp(`no loaded GGUF file is manifest 'other''s \\(SHA-256 ${other.sha256}`));
  assert.equal(template.error, 'model_not_served');
  assert.match(template.message, /chat template/);
  const failed = await audit({ manifest: foreign, tokenIds: [40], text: Buffer.from('%') });
  assert.equal(failed.verdict, 'failed');
  assert.match(failed.reason, /no loaded GGUF file/);
});
