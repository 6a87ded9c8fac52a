import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpoiAuditError, opoiAuditParams, opoiSubmitAuditParams, parseOpoiAudit, parseOpoiSubmitAudit } from './opoi-audit.ts';
import { opoiManifestJson, parseOpoiManifest, type OpoiManifest } from './opoi-manifest.ts';
import { opoiAssignmentFits, opoiAssignParams, opoiSubmitResultParams, parseOpoiAssign, parseOpoiSubmitResult } from './opoi.ts';

const ID = '0b1c2d3e-4f50-4172-8394-a5b6c7d8e9f0';
const MANIFEST: OpoiManifest = {
  modelId: 'tiny-llama',
  ggufSha256: 'cd'.repeat(32),
  ggufSize: 4096,
  bos: 'metadata',
  parseSpecial: false,
  chatTemplateSha256: null,
  tolerance: 32768,
};
const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v));

test('a manifest reads back, and reads from getmodelmanifest with its extra fields', () => {
  assert.deepEqual(parseOpoiManifest(wire(opoiManifestJson(MANIFEST))), MANIFEST);
  const rpc = { ...opoiManifestJson(MANIFEST), registrant: 'tmX', fee: 0.1, txid: 'ef'.repeat(32), height: 5, confirmations: 1 };
  assert.deepEqual(parseOpoiManifest(rpc), MANIFEST);
  for (const [field, value] of [
    ['decoding', 'sampled'],
    ['bos', 'sometimes'],
    ['tolerance', -1],
    ['gguf_sha256', 'xyz'],
    ['gguf_size', 0],
  ] as const) {
    assert.throws(() => parseOpoiManifest({ ...opoiManifestJson(MANIFEST), [field]: value }), new RegExp(field));
  }
});

test('a VERIFIABLE assignment carries its manifest, and its result the token ids', () => {
  const a = {
    requestId: ID,
    model: 'tiny-llama',
    prompt: Buffer.from('Hi?'),
    maxTokens: 8,
    taskType: 'VERIFIABLE',
    taskClass: null,
    manifest: MANIFEST,
  };
  const read = parseOpoiAssign(wire(opoiAssignParams(a)));
  assert.deepEqual(read.manifest, MANIFEST);
  const result = parseOpoiSubmitResult(wire(opoiSubmitResultParams(ID, Buffer.from('ab'), 2, [97, 98])));
  assert.deepEqual(result.tokenIds, [97, 98]);
  assert.equal(parseOpoiSubmitResult(wire(opoiSubmitResultParams(ID, Buffer.from('ab'), 2))).tokenIds, null);
  assert.throws(() => parseOpoiSubmitResult(wire(opoiSubmitResultParams(ID, Buffer.from('ab'), 3, [97, 98]))), /2 ids for token_count 3/);
  assert.throws(() => parseOpoiSubmitResult([{ ...opoiSubmitResultParams(ID, Buffer.from('ab'), 1)[0], token_ids: [-1] }]), /token id/);
});

test('a VERIFIABLE assignment fits only a miner holding the manifest file', () => {
  const a = { model: 'tiny-llama', maxTokens: 8, prompt: Buffer.from('Hi'), manifest: MANIFEST };
  const holder = {
    models: ['other'],
    maxTokens: null,
    maxPromptBytes: null,
    concurrency: 1,
    files: [{ sha256: MANIFEST.ggufSha256, size: 4096 }],
    audits: true,
  };
  assert.equal(opoiAssignmentFits(holder, a), null);
  assert.match(opoiAssignmentFits({ ...holder, files: [{ sha256: MANIFEST.ggufSha256, size: 4095 }] }, a) ?? '', /not held/);
  assert.match(opoiAssignmentFits({ ...holder, files: [] }, a) ?? '', /not held/);
});

test('opoi.audit and opoi.submit_audit read back what was built', () => {
  const task = {
    auditId: 'precommit:1',
    requestId: ID,
    manifest: MANIFEST,
    prompt: Buffer.from('Hi?'),
    tokenIds: [72, 105],
    text: Buffer.from('Hi'),
    maxTokens: 8,
  };
  const read = parseOpoiAudit(wire(opoiAuditParams(task)));
  assert.deepEqual({ ...read, prompt: Buffer.from(read.prompt), text: Buffer.from(read.text) }, task);
  const report = {
    auditId: 'precommit:1',
    requestId: ID,
    verdict: 'invalid' as const,
    position: 1,
    evidence: { claimedToken: 105, claimedLogit: 1.5, argmaxToken: 33, argmaxLogit: 4.25 },
    reason: 'token 1 is 2.75 logits under the argmax',
  };
  assert.deepEqual(parseOpoiSubmitAudit(wire(opoiSubmitAuditParams(report))), report);
  const valid = { auditId: 'a', requestId: ID, verdict: 'valid' as const, position: null, evidence: null, reason: '' };
  assert.deepEqual(parseOpoiSubmitAudit(wire(opoiSubmitAuditParams(valid))), valid);
  assert.throws(() => parseOpoiSubmitAudit([{ ...opoiSubmitAuditParams(valid)[0], verdict: 'maybe' }]), /verdict/);
});

test('a malformed opoi.audit keeps its audit_id when it has one, to report the failure', () => {
  const [p] = opoiAuditParams({
    auditId: 'x1',
    requestId: ID,
    manifest: MANIFEST,
    prompt: Buffer.from('a'),
    tokenIds: [1, 2, 3],
    text: Buffer.from('abc'),
    maxTokens: 2,
  });
  assert.throws(
    () => parseOpoiAudit([p]),
    (e: unknown) => e instanceof OpoiAuditError && e.auditId === 'x1' && e.requestId === ID && /at most 2 token ids/.test(e.message),
  );
  assert.throws(
    () => parseOpoiAudit([{ ...p, audit_id: 'no spaces' }]),
    (e: unknown) => e instanceof OpoiAuditError && e.auditId === null,
  );
});
