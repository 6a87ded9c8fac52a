import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { StratumErrorCode, decodeMessage } from './codec.ts';
import {
  OpoiAssignError,
  encodeOpoiAssign,
  OpoiFailure,
  opoiAssignmentFits,
  opoiAssignParams,
  opoiSubmitErrorParams,
  opoiSubmitResultParams,
  opoiSubscribeParams,
  parseOpoiAssign,
  parseOpoiSubmitError,
  parseOpoiSubmitResult,
  parseOpoiSubscribe,
} from './opoi.ts';

const ID = '0b1c2d3e-4f50-4172-8394-a5b6c7d8e9f0';

// What each side builds, the other reads back unchanged: the wire round trip is the contract.
test('every OPoI message reads back what was built', () => {
  const sub = {
    models: ['tiny', 'llama3'],
    maxTokens: 512,
    maxPromptBytes: 4096,
    concurrency: 2,
    files: [{ sha256: 'ab'.repeat(32), size: 123 }],
    audits: true,
  };
  assert.deepEqual(parseOpoiSubscribe(JSON.parse(JSON.stringify(opoiSubscribeParams(sub)))), sub);
  const assignment = { requestId: ID, model: 'tiny', prompt: Buffer.from('Hi?'), maxTokens: 8, taskType: 'OPEN', taskClass: null, manifest: null };
  const read = parseOpoiAssign(JSON.parse(JSON.stringify(opoiAssignParams(assignment))));
  assert.deepEqual({ ...read, prompt: Buffer.from(read.prompt) }, assignment);
  const result = parseOpoiSubmitResult(JSON.parse(JSON.stringify(opoiSubmitResultParams(ID, Buffer.from('Hello'), 2))));
  assert.equal(result.responseHash, createHash('sha256').update('Hello').digest('hex'));
  assert.equal(Buffer.from(result.response).toString(), 'Hello');
  assert.equal(result.tokenCount, 2);
  const failure = { requestId: ID, error: OpoiFailure.BACKEND_ERROR, message: 'connect ECONNREFUSED' };
  assert.deepEqual(parseOpoiSubmitError(JSON.parse(JSON.stringify(opoiSubmitErrorParams(failure)))), failure);
});

test('opoi.subscribe defaults: no limits, one assignment at a time', () => {
  assert.deepEqual(parseOpoiSubscribe([{ models: ['tiny'] }]), {
    models: ['tiny'],
    maxTokens: null,
    maxPromptBytes: null,
    concurrency: 1,
    files: [],
    audits: false,
  });
  for (const bad of [[], [{ models: [] }], [{ models: [''] }], [{ models: ['a'], concurrency: 0 }], [{ models: ['a'], max_tokens: 1.5 }]]) {
    assert.throws(
      () => parseOpoiSubscribe(bad),
      (e: { code: number }) => e.code === StratumErrorCode.OTHER,
      JSON.stringify(bad),
    );
  }
});

test('a malformed opoi.assign keeps its request_id when it has one, to report the failure', () => {
  assert.throws(
    () => parseOpoiAssign([{ request_id: ID.toUpperCase(), model: 'tiny', prompt_hex: 'zz', max_tokens: 4 }]),
    (e: unknown) => e instanceof OpoiAssignError && e.requestId === ID,
  );
  assert.throws(
    () => parseOpoiAssign([{ request_id: 'nope', model: 'tiny', prompt_hex: '', max_tokens: 4 }]),
    (e: unknown) => e instanceof OpoiAssignError && e.requestId === null,
  );
});

test('a result whose hash is not the SHA-256 of its bytes is refused', () => {
  const [p] = opoiSubmitResultParams(ID, Buffer.from('Hello'), 2);
  assert.throws(() => parseOpoiSubmitResult([{ ...p, response_hex: Buffer.from('Hellp').toString('hex') }]), /SHA-256/);
  assert.throws(() => parseOpoiSubmitResult([{ ...p, token_count: -1 }]), /token_count/);
  assert.throws(() => parseOpoiSubmitError([{ request_id: ID, error: 'sulking' }]), /error must be one of/);
});

test('an assignment fits the announcement only within its models and limits', () => {
  const sub = { models: ['tiny'], maxTokens: 16, maxPromptBytes: 4, concurrency: 1, files: [], audits: false };
  const a = { model: 'tiny', maxTokens: 16, prompt: Buffer.from('abcd') };
  assert.equal(opoiAssignmentFits(sub, a), null);
  assert.match(opoiAssignmentFits(sub, { ...a, model: 'big' }) ?? '', /not served/);
  assert.match(opoiAssignmentFits(sub, { ...a, maxTokens: 17 }) ?? '', /max_tokens/);
  assert.match(opoiAssignmentFits(sub, { ...a, prompt: Buffer.from('abcde') }) ?? '', /prompt/);
});

test('opoi.assign is written as the reference bridge writes it, and reads back', () => {
  const a = {
    requestId: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
    model: 'tiny',
    prompt: Buffer.from('Hi?'),
    maxTokens: 7,
    taskType: 'OPEN',
    taskClass: null,
    manifest: null,
  };
  const line = encodeOpoiAssign(a);
  assert.equal(
    line,
    '{"jsonrpc":"2.0","method":"opoi.assign","params":[{"request_id":"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9","model":"tiny","prompt_hex":"48693f","max_tokens":7,"task_type":"OPEN"}],"id":null}\n',
  );
  const msg = decodeMessage(line.trimEnd());
  assert.equal(msg.kind, 'request');
  assert.deepEqual(parseOpoiAssign((msg as { params: readonly unknown[] }).params), { ...a, prompt: Buffer.from('Hi?') });
});
