import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NETWORKS } from '@cs/consensus';
import { CLI_OPTIONS } from './cli-options.ts';
import { formatOptionsHelp, type OptionTable } from '@cs/runtime/config';
import { NODE_OPTIONS } from './options.ts';

const TABLES: readonly [string, OptionTable][] = [
  ['csd', NODE_OPTIONS],
  ['cs-cli', CLI_OPTIONS],
];

test('the node table has every option the interface and the node need', () => {
  const required = [
    'conf',
    'datadir',
    'regtest',
    'testnet',
    'chain',
    'printtoconsole',
    'loglevel',
    'reindex',
    'server',
    'rpcuser',
    'rpcpassword',
    'rpcport',
    'rpcbind',
    'rpcallowip',
    'rpccookiefile',
    'rpccorsdomain',
    'rpcratelimit',
    'rest',
    'restratelimit',
    'wsport',
    'wsratelimit',
    'zmqpubrawblock',
    'zmqpubrawtx',
    'zmqpubhashblock',
    'zmqpubhashtx',
    'zmqpubsequence',
    'zmqpubopoi',
    'zmqpubrawblockhwm',
    'zmqpubrawtxhwm',
    'zmqpubhashblockhwm',
    'zmqpubhashtxhwm',
    'zmqpubsequencehwm',
    'zmqpubopoihwm',
    'maxmempool',
    'mempoolexpiry',
    'persistmempool',
    'minrelaytxfee',
    'blockmintxfee',
    'datacarriersize',
    'acceptnonstdtxn',
    'limitancestorcount',
    'limitdescendantcount',
    'limitancestorsize',
    'limitdescendantsize',
    'txindex',
    'addressindex',
    'disablewallet',
    'par',
    'dbcache',
    'blockmaxweight',
    'fallbackfee',
    'mocktime',
  ];
  assert.deepEqual(
    required.filter((name) => !(name in NODE_OPTIONS)),
    [],
  );
  assert.equal(NODE_OPTIONS.rpcport.default(NETWORKS.regtest), 16180);
  for (const name of ['zmqpubrawblock', 'zmqpubrawtx', 'rpcbind', 'rpcallowip'] as const) assert.equal(NODE_OPTIONS[name].kind, 'list');
  assert.equal(NODE_OPTIONS.rpcpassword.sensitive, true);
  assert.equal(CLI_OPTIONS.rpcpassword.sensitive, true);
});

test('names are plain lowercase words that cannot be mistaken for negations, sections or each other', () => {
  for (const [program, table] of TABLES) {
    const spellings = new Set<string>();
    for (const [name, spec] of Object.entries(table)) {
      assert.match(name, /^[a-z][a-z0-9]*$/, `${program} -${name}`);
      assert.ok(!name.startsWith('no'), `${program} -${name} would read as a negation`);
      for (const spelling of [name, ...spec.aliases]) {
        assert.ok(!spellings.has(spelling), `${program} -${spelling} twice`);
        spellings.add(spelling);
      }
      assert.ok(spec.description.length > 10, `${program} -${name} needs a description`);
    }
  }
});

test("every default passes the option's own validation on every network", () => {
  for (const [program, table] of TABLES) {
    for (const [name, spec] of Object.entries(table)) {
      for (const net of Object.values(NETWORKS)) {
        const value = spec.default(net);
        if (value === null) continue;
        const items = Array.isArray(value) ? value.map((item) => [item]) : [value];
        for (const item of items) {
          const parsed = spec.parse(spec.show(item));
          assert.ok(parsed.ok, `${program} -${name} default ${spec.show(item)} on ${net.name}`);
          assert.deepEqual(parsed.value, item);
        }
      }
    }
  }
});

test('options both programs read from cs.conf mean the same in both', () => {
  for (const name of ['datadir', 'conf', 'chain', 'regtest', 'testnet', 'rpcport', 'rpcuser', 'rpcpassword', 'rpccookiefile'] as const) {
    const node = NODE_OPTIONS[name];
    const cli = CLI_OPTIONS[name];
    assert.equal(cli.kind, node.kind, name);
    assert.equal(cli.placement, node.placement, name);
    for (const net of Object.values(NETWORKS)) assert.deepEqual(cli.default(net), node.default(net), name);
  }
});

test('help lists every option with its placeholder and default', () => {
  const help = formatOptionsHelp(NODE_OPTIONS);
  for (const name of Object.keys(NODE_OPTIONS)) assert.match(help, new RegExp(`^  -${name}\\b`, 'm'), name);
  assert.match(help, /^ {2}-rpcport=<port>\n {7}Serve JSON-RPC and REST on <port>\. \(default: 16180\)$/m);
  assert.match(help, /\(default: 127\.0\.0\.1, ::1\)/);
  assert.match(help, /-minrelaytxfee=<amt>\n.*\n? *.*\(default: 0\.00001\)/);
  assert.ok(
    help.split('\n').every((line) => line.length <= 79),
    'wrapped at 79 columns',
  );
});

test('docs/configuration.md and docs/cs-cli.md describe every option', () => {
  const docs = (name: string) => readFileSync(new URL(`../../../../docs/${name}`, import.meta.url), 'utf8');
  const configuration = docs('configuration.md');
  for (const name of Object.keys(NODE_OPTIONS)) assert.match(configuration, new RegExp(`\`-?${name}\\b`), `configuration.md: ${name}`);
  const cli = docs('cs-cli.md');
  for (const name of Object.keys(CLI_OPTIONS)) assert.match(cli, new RegExp(`\`-${name}\\b`), `cs-cli.md: ${name}`);
});
