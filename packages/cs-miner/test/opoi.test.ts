// The OPoI worker end to end: the real cs-miner program against a stratum server standing in for
// the bridge, with Ollama- and OpenAI-compatible HTTP servers and the embedded llama.cpp engine on
// a generated tiny model. Results must carry the SHA-256 of their bytes and a token count within
// max_tokens; failures must come back as opoi.submit_error while shares keep flowing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { freePort } from '../../csd/test/daemon.ts';
import { tinyLlamaGguf } from '../src/gguf/tiny-llama.ts';
import { InferenceServer, expectedAnswer } from './inference-servers.ts';
import { MinerProcess } from './miner-process.ts';
import { TestStratumServer, until } from './test-stratum-server.ts';

// Each test's miner and servers stop when it ends: a miner left running would take the CPU the
// next test's miner needs.
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function bridge(): Promise<TestStratumServer> {
  const s = new TestStratumServer();
  await s.listen();
  cleanup.push(() => s.close());
  return s;
}

function miner(server: TestStratumServer, extra: string[]): MinerProcess {
  const m = new MinerProcess([`-pool=stratum+tcp://127.0.0.1:${server.port}`, '-user=csrt1qminer.opoi', '-threads=1', '-algo=48_5', ...extra]);
  cleanup.push(() => m.stop());
  return m;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

test('a miner without models never announces OPoI', async () => {
  const server = await bridge();
  const m = miner(server, []);
  await until(() => server.validShares >= 1, 'a share');
  await m.stop();
  assert.deepEqual(server.announcements, []);
});

test('Ollama backend: announced, assignment answered with the right hash, twice the same; unserved model refused; shares flow', async () => {
  const ollama = new InferenceServer('ollama');
  await ollama.listen();
  cleanup.push(() => ollama.close());
  const server = await bridge();
  miner(server, [`-model=llama3.2=ollama:${ollama.url}#llama3.2:1b`, '-opoi-max-tokens=100']);
  await until(() => server.announcements.length === 1, 'opoi.subscribe');
  assert.deepEqual(server.announcements[0], {
    models: ['llama3.2'],
    maxTokens: 100,
    maxPromptBytes: 65536,
    concurrency: 1,
    files: [],
    audits: false,
  });

  const prompt = 'why is the sky blue on a clear day';
  const first = server.assign({ model: 'llama3.2', prompt, maxTokens: 5 });
  await until(() => server.results.length === 1, 'first result');
  const second = server.assign({ model: 'llama3.2', prompt, maxTokens: 5 });
  await until(() => server.results.length === 2, 'second result');
  const want = expectedAnswer(prompt, 5);
  for (const [i, id] of [first, second].entries()) {
    const r = server.results[i];
    assert.equal(r.requestId, id);
    assert.equal(Buffer.from(r.response).toString('utf8'), want.text);
    assert.equal(r.responseHash, sha256(r.response));
    assert.equal(r.tokenCount, want.tokens);
  }
  assert.equal(server.results[0].responseHash, server.results[1].responseHash);
  // Greedy, seeded, the remote model name from the mapping, max_tokens passed on.
  assert.deepEqual(ollama.requests[0], {
    model: 'llama3.2:1b',
    prompt,
    raw: true,
    stream: false,
    options: { num_predict: 5, temperature: 0, top_k: 1, seed: 42 },
  });

  const unserved = server.assign({ model: 'gpt-oss', prompt, maxTokens: 5 });
  await until(() => server.errors.length === 1, 'the refusal');
  assert.equal(server.errors[0].requestId, unserved);
  assert.equal(server.errors[0].error, 'model_not_served');
  const over = server.assign({ model: 'llama3.2', prompt, maxTokens: 101 });
  await until(() => server.errors.length === 2, 'the over-limit refusal');
  assert.deepEqual([server.errors[1].requestId, server.errors[1].error], [over, 'over_limit']);
  await until(() => server.validShares >= 3, 'shares');
  assert.equal(server.invalidShares, 0);
});

test('OpenAI-compatible backend: usage.completion_tokens is the token count', async () => {
  const openai = new InferenceServer('openai');
  await openai.listen();
  cleanup.push(() => openai.close());
  const server = await bridge();
  miner(server, [`-model=gpt-4o-mini=openai:${openai.url}`]);
  await until(() => server.announcements.length === 1, 'opoi.subscribe');
  const prompt = 'one two three four five six seven';
  // One at a time: the miner announced concurrency 1, and a second would be refused as busy.
  server.assign({ model: 'gpt-4o-mini', prompt, maxTokens: 4 });
  await until(() => server.results.length === 1, 'the first result');
  server.assign({ model: 'gpt-4o-mini', prompt, maxTokens: 4 });
  await until(() => server.results.length === 2, 'the second result');
  const want = expectedAnswer(prompt, 4);
  for (const r of server.results) {
    assert.equal(Buffer.from(r.response).toString('utf8'), want.text);
    assert.equal(r.responseHash, sha256(r.response));
    assert.equal(r.tokenCount, 4);
  }
  const req = openai.requests[0] as { model: string; messages: unknown; max_tokens: number; temperature: number; seed: number };
  assert.deepEqual(
    [req.model, req.messages, req.max_tokens, req.temperature, req.seed],
    ['gpt-4o-mini', [{ role: 'user', content: prompt }], 4, 0, 42],
  );
});

test('a backend that is down or hangs is reported (backend_error, timeout) while shares keep flowing', async () => {
  const hung = new InferenceServer('ollama');
  await hung.listen();
  hung.hang = true;
  cleanup.push(() => hung.close());
  const down = await freePort();
  const server = await bridge();
  const m = miner(server, [
    `-model=down=ollama:http://127.0.0.1:${down}`,
    `-model=hung=ollama:${hung.url}`,
    '-opoi-timeout=1500',
    '-opoi-concurrency=2',
  ]);
  await until(() => server.announcements.length === 1, 'opoi.subscribe');
  const a = server.assign({ model: 'down', prompt: 'hello', maxTokens: 8 });
  await until(() => server.errors.length === 1, 'the failure report');
  assert.deepEqual([server.errors[0].requestId, server.errors[0].error], [a, 'backend_error']);
  assert.match(server.errors[0].message, /ECONNREFUSED/);
  const b = server.assign({ model: 'hung', prompt: 'hello', maxTokens: 8 });
  await until(() => server.errors.length === 2, 'the timeout report');
  assert.deepEqual([server.errors[1].requestId, server.errors[1].error], [b, 'timeout']);
  const before = server.validShares;
  await until(() => server.validShares >= before + 3, 'shares after the failures');
  await m.waitForStatus('opoi_failed', 2);
});

test('embedded llama.cpp on a generated tiny model: the same answer twice, accepted by the bridge', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-miner-model-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const modelPath = join(dir, 'tiny.gguf');
  writeFileSync(modelPath, tinyLlamaGguf(7));
  const server = await bridge();
  const m = miner(server, [`-model-path=${modelPath}`, '-llama-threads=1', '-llama-context=256']);
  await until(() => server.announcements.length === 1, 'opoi.subscribe');
  assert.deepEqual(server.announcements[0].models, ['tiny']);
  const prompt = 'The quick brown fox';
  server.assign({ model: 'tiny', prompt, maxTokens: 12 });
  await until(() => server.results.length === 1, 'first result');
  server.assign({ model: 'tiny', prompt, maxTokens: 12 });
  await until(() => server.results.length === 2, 'second result');
  server.assign({ model: 'tiny', prompt: 'A different prompt entirely', maxTokens: 12 });
  await until(() => server.results.length === 3, 'third result');
  const [r1, r2, r3] = server.results;
  assert.equal(r1.responseHash, sha256(r1.response));
  assert.deepEqual(Buffer.from(r1.response), Buffer.from(r2.response));
  assert.equal(r1.responseHash, r2.responseHash);
  assert.equal(r1.tokenCount, r2.tokenCount);
  assert.ok(r1.tokenCount >= 1 && r1.tokenCount <= 12, `token_count ${r1.tokenCount}`);
  assert.notEqual(r3.responseHash, r1.responseHash);
  await m.waitForStatus('opoi_done', 3);
  const before = server.validShares;
  await until(() => server.validShares > before, 'a share after the inferences');
});
