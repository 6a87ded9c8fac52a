import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EQUIHASH_48_5, ZELHASH } from '@cs/consensus';
import { buildConfig, parseModel, readOptions } from './config.ts';

const BASE = ['-pool=stratum+tcp://127.0.0.1:3332', '-user=csrt1qexample.rig1'];

test('models map names to backends; the server-side name defaults to the on-chain one', () => {
  assert.deepEqual(parseModel('tiny=llama:/models/tiny.gguf'), { name: 'tiny', backend: { kind: 'llama', path: '/models/tiny.gguf' } });
  assert.deepEqual(parseModel('llama3.2=ollama:http://127.0.0.1:11434/#llama3.2:1b'), {
    name: 'llama3.2',
    backend: { kind: 'ollama', url: 'http://127.0.0.1:11434', remoteModel: 'llama3.2:1b' },
  });
  assert.deepEqual(parseModel('qwen=openai:https://api.example/'), {
    name: 'qwen',
    backend: { kind: 'openai', url: 'https://api.example', remoteModel: 'qwen' },
  });
  assert.throws(() => parseModel('qwen=openai:ftp://x'), /http:\/\/ or https:\/\//);
});

test('-model-path is served under its file name unless -model-name says otherwise; a name twice is an error', () => {
  const c = buildConfig(readOptions([...BASE, '-model-path=/m/Tiny-Q4.gguf', '-model=big=ollama:http://h:1']));
  assert.deepEqual(
    c.models.map((m) => m.name),
    ['big', 'Tiny-Q4'],
  );
  assert.equal(buildConfig(readOptions([...BASE, '-model-path=/m/a.gguf', '-model-name=tiny'])).models[0].name, 'tiny');
  assert.throws(() => buildConfig(readOptions([...BASE, '-model-name=tiny'])), /-model-path/);
  assert.throws(() => buildConfig(readOptions([...BASE, '-model-path=/m/x.gguf', '-model=x=ollama:http://h:1'])), /configured twice/);
});

test('threads default to every core and the engine to half of them; -algo picks the fallback algorithm', () => {
  const c = buildConfig(readOptions(BASE));
  assert.ok(c.threads >= 1, `threads ${c.threads}`);
  assert.equal(c.llamaThreads, Math.max(1, Math.floor(c.threads / 2)));
  assert.equal(c.defaultAlgorithm, ZELHASH);
  assert.equal(buildConfig(readOptions([...BASE, '-algo=48_5', '-threads=3'])).defaultAlgorithm, EQUIHASH_48_5);
  assert.equal(buildConfig(readOptions([...BASE, '-threads=3'])).threads, 3);
  assert.deepEqual(
    buildConfig(readOptions([...BASE, '-pool=stratum+ssl://10.0.0.2:3335'])).pools.map((p) => p.text),
    ['stratum+tcp://127.0.0.1:3332', 'stratum+ssl://10.0.0.2:3335'],
  );
  assert.throws(() => readOptions([...BASE, 'extra']), /unexpected argument/);
  assert.throws(() => readOptions([...BASE, '-threads=-1']), /threads/);
});
