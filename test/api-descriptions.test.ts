// The API descriptions generated from csd's method table are the checked-in ones, and a running
// csd agrees with them: `help` lists exactly the described methods, `help <method>` is each one's text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { RPC_METHOD_NAMES, RpcClient } from '@cs/client';
import { Daemon } from '../packages/csd/test/daemon.ts';
import { generatedApiFiles, RPC_METHODS_JSON } from '../scripts/api-files.ts';

interface Described {
  readonly name: string;
  readonly category: string;
  readonly params: readonly { readonly name: string; readonly optional: boolean }[];
  readonly result: { readonly text: string };
  readonly help: string;
}

const described = (JSON.parse(readFileSync(RPC_METHODS_JSON, 'utf8')) as { methods: Described[] }).methods;

test('the checked-in descriptions are what npm run gen:api writes', () => {
  for (const [path, text] of generatedApiFiles()) {
    assert.equal(readFileSync(path, 'utf8'), text, `${path} is out of date: run npm run gen:api`);
  }
  assert.deepEqual(
    [...RPC_METHOD_NAMES],
    described.map((m) => m.name),
    'the client types list the described methods',
  );
});

const node = new Daemon({ cookie: true });
let rpc: RpcClient;

before(async () => {
  await node.start();
  rpc = new RpcClient({ url: `http://127.0.0.1:${node.rpcPort}/`, auth: { cookieFile: node.cookiePath } });
});
after(async () => {
  rpc.close();
  await node.cleanup();
});

test('help on a running csd lists exactly the described methods, by category', async () => {
  const index = await rpc.call('help');
  const listed: { name: string; category: string }[] = [];
  let category = '';
  for (const line of index.split('\n')) {
    const heading = /^== (\w+) ==$/.exec(line);
    if (heading) category = heading[1];
    else if (line.trim() !== '') listed.push({ name: line.split(' ')[0], category });
  }
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
  assert.deepEqual(
    listed.sort(byName),
    described.map((m) => ({ name: m.name, category: m.category })).sort(byName),
    'help lists each described method under its category, and nothing else',
  );
});

test('help <method> on a running csd is the described help, with every parameter and the result', async () => {
  const texts = await rpc.batch(described.map((m) => ({ method: 'help' as const, params: [m.name] as const })));
  described.forEach((m, i) => {
    const answer = texts[i];
    assert.equal(answer.ok, true, `help ${m.name} answered`);
    const text = answer.ok ? String(answer.result) : '';
    assert.equal(text, m.help, `help ${m.name} is the described text`);
    const signature = text.split('\n')[0];
    for (const p of m.params) assert.match(signature, new RegExp(`\\b${p.name}\\b`), `help ${m.name} names its parameter ${p.name}`);
    assert.ok(text.includes(`Result:\n${m.result.text.trim()}`), `help ${m.name} shows the described result`);
  });
});
