import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NETWORKS } from '@cs/consensus';
import { CLI_OPTIONS } from './cli-options.ts';
import { ConfigError, type ConfigErrorSource, infoRequest, loadSettings } from '@cs/runtime/config';
import { loadConfig } from './node-config.ts';
import { NODE_OPTIONS } from './options.ts';

const root = mkdtempSync(join(tmpdir(), 'cs-config-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

/** A fresh data directory, with cs.conf when `conf` is given. */
function dataDir(conf?: string): string {
  const dir = join(root, `d${dirs++}`);
  mkdirSync(dir);
  if (conf !== undefined) writeFileSync(join(dir, 'cs.conf'), conf);
  return dir;
}

function load(argv: readonly string[], conf?: string) {
  const dir = dataDir(conf);
  return { dir, config: loadConfig([`-datadir=${dir}`, ...argv], { HOME: root }) };
}

function fails(argv: readonly string[], conf: string | undefined, message: string | RegExp, source?: ConfigErrorSource) {
  assert.throws(
    () => load(argv, conf),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      if (source) assert.equal(error.source, source);
      return true;
    },
  );
}

test('with nothing configured every option has its default, on main, in the data directory', () => {
  const { dir, config } = load([]);
  assert.equal(config.network, NETWORKS.main);
  assert.deepEqual(config.paths, {
    dataDir: dir,
    networkDir: dir,
    confFile: join(dir, 'cs.conf'),
    debugLog: join(dir, 'debug.log'),
    mempoolFile: join(dir, 'mempool.dat'),
    feeEstimatesFile: join(dir, 'fee_estimates.dat'),
    cookieFile: join(dir, '.cookie'),
  });
  const o = config.options;
  assert.equal(o.rpcport, 16180);
  assert.deepEqual(o.rpcbind, ['127.0.0.1', '::1']);
  assert.deepEqual(o.rpcallowip, []);
  assert.equal(o.server, true);
  assert.equal(o.rest, false);
  assert.equal(o.wsport, null);
  assert.equal(o.rpcratelimit, 100);
  assert.equal(o.restratelimit, 200);
  assert.equal(o.wsratelimit, 1000);
  assert.equal(o.zmqpubrawtxhwm, 1000);
  assert.equal(o.maxmempool, 300);
  assert.equal(o.mempoolexpiry, 336);
  assert.equal(o.minrelaytxfee, 1000n);
  assert.equal(o.datacarriersize, 83);
  assert.equal(o.limitancestorcount, 25);
  assert.equal(o.limitdescendantsize, 101);
  assert.equal(o.txindex, true);
  assert.equal(o.addressindex, true);
  assert.equal(o.acceptnonstdtxn, false);
  assert.equal(o.loglevel, 'info');
  assert.equal(o.rpcpassword, null);
  assert.equal(config.isSet('rpcport'), false);
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.options) && Object.isFrozen(config.paths));
  assert.ok(Object.isFrozen(o.rpcbind));
});

test('the default data directory is ~/.cs and each network keeps its data in its own folder', () => {
  const home = dataDir();
  const main = loadConfig([], { HOME: home });
  assert.equal(main.paths.dataDir, join(home, '.cs'));
  assert.equal(main.paths.networkDir, join(home, '.cs'));
  assert.equal(loadConfig(['-testnet'], { HOME: home }).paths.networkDir, join(home, '.cs', 'testnet'));
  const regtest = loadConfig(['-chain=regtest'], { HOME: home });
  assert.equal(regtest.paths.networkDir, join(home, '.cs', 'regtest'));
  assert.equal(regtest.paths.confFile, join(home, '.cs', 'cs.conf'), 'cs.conf stays at the top');
  assert.equal(regtest.paths.cookieFile, join(home, '.cs', 'regtest', '.cookie'));
  assert.equal(regtest.options.acceptnonstdtxn, false);
  assert.equal(loadConfig(['-testnet'], { HOME: home }).options.acceptnonstdtxn, true, 'per-network default');
});

test('command-line forms: -key=value, --key=value, -key, -nokey, double negatives', () => {
  const { config } = load(['-rpcport=1', '--rpcport=2', '-rest', '-noserver', '-notxindex=0', '-rpcuser']);
  assert.equal(config.options.rpcport, 2, 'the last command-line value wins');
  assert.equal(config.options.rest, true);
  assert.equal(config.options.server, false);
  assert.equal(config.options.txindex, true);
  assert.equal(config.options.rpcuser, '', 'a bare string option is the empty string');
  assert.deepEqual(config.warnings, ['Parsed potentially confusing double-negative -notxindex=0']);
  assert.equal(load(['-rest=0']).config.options.rest, false);
  assert.equal(load(['-norest=1']).config.options.rest, false);
});

test('a non-dash argument stops option parsing: csd refuses it, cs-cli takes it as method and params', () => {
  fails(['getblock'], undefined, "Command line contains unexpected token 'getblock', see csd -help for a list of options.");
  const dir = dataDir();
  const cli = loadSettings(CLI_OPTIONS, [`-datadir=${dir}`, '-named', 'getblock', '-rpcport=1', '-1'], {}, { tolerated: () => true });
  assert.deepEqual(cli.positional, ['getblock', '-rpcport=1', '-1']);
  assert.equal(cli.values.named, true);
  assert.equal(cli.values.rpcport, 16180);
});

test('cs.conf: comments, blank lines and whitespace; sections apply to their network only', () => {
  const conf = [
    '# a comment',
    '',
    '  rpcuser = alice   # trailing comment',
    'rpcport=1111',
    'maxmempool=100',
    '[regtest]',
    'rpcport=2222',
    '[test]',
    'rpcport=3333',
    'maxmempool=50',
  ].join('\n');
  const main = load([], conf).config;
  assert.equal(main.options.rpcuser, 'alice');
  assert.equal(main.options.rpcport, 1111);
  assert.equal(main.isSet('rpcport'), true);
  const regtest = load(['-regtest'], conf).config;
  assert.equal(regtest.options.rpcport, 2222, 'the network section beats the top level');
  assert.equal(regtest.options.maxmempool, 100, 'top-level values apply to every network');
  assert.equal(regtest.options.rpcuser, 'alice');
  const test = load(['-testnet'], conf).config;
  assert.equal(test.options.rpcport, 3333);
  assert.equal(test.options.maxmempool, 50);
  assert.equal(load(['-regtest', '-rpcport=4444'], conf).config.options.rpcport, 4444, 'the command line beats the file');
});

test('a UTF-8 byte order mark at the start of cs.conf is not part of the first key', () => {
  assert.equal(load([], '\ufeffrpcport=1234\n').config.options.rpcport, 1234);
});

test('section-prefixed keys (regtest.rpcport=) act like section entries; [main] applies to main only', () => {
  const conf = 'regtest.rpcport=5555\n[main]\nrpcport=6666\n';
  assert.equal(load(['-regtest'], conf).config.options.rpcport, 5555);
  assert.equal(load([], conf).config.options.rpcport, 6666);
  assert.equal(load(['-testnet'], conf).config.options.rpcport, 16180);
});

test('in the file the first value of a single-valued option wins, as in Core, with a warning', () => {
  const { config } = load([], 'rpcport=1\nrpcport=2\n');
  assert.equal(config.options.rpcport, 1);
  assert.match(config.warnings.join('\n'), /-rpcport is set more than once at the top of the configuration file \(lines 1, 2\)/);
  assert.equal(load([], 'noserver=1\nserver=1\nserver=0\n').config.options.server, true, 'values after the last negation count');
  assert.equal(load([], 'server=0\nnoserver=0\n').config.options.server, false, 'a double negative is a value, not a negation');
  assert.equal(load([], 'rest=1\nnorest=1\n').config.options.rest, false, 'a trailing negation wins');
});

test('repeatable options: the command line replaces the file; the file joins section and top level', () => {
  const conf = 'rpcallowip=10.0.0.0/8\nrpcallowip=1.2.3.4\n[regtest]\nrpcallowip=192.168.0.0/16\n';
  assert.deepEqual(load([], conf).config.options.rpcallowip, ['10.0.0.0/8', '1.2.3.4']);
  assert.deepEqual(load(['-regtest'], conf).config.options.rpcallowip, ['192.168.0.0/16', '10.0.0.0/8', '1.2.3.4']);
  assert.deepEqual(load(['-rpcallowip=::1', '-rpcallowip=fd00::/8'], conf).config.options.rpcallowip, ['::1', 'fd00::/8']);
  assert.deepEqual(load(['-norpcallowip'], conf).config.options.rpcallowip, [], '-noX empties the list');
  assert.deepEqual(load(['-rpcbind=1.2.3.4', '-norpcbind', '-rpcbind=0.0.0.0']).config.options.rpcbind, ['0.0.0.0']);
  const negatedInSection = 'zmqpubrawtx=tcp://127.0.0.1:1\n[regtest]\nnozmqpubrawtx=1\n';
  assert.deepEqual(load(['-regtest'], negatedInSection).config.options.zmqpubrawtx, [], 'a section negation hides the top level');
  assert.deepEqual(load([], negatedInSection).config.options.zmqpubrawtx, ['tcp://127.0.0.1:1']);
  const twice = load([], 'zmqpubrawtx=tcp://127.0.0.1:28332\nzmqpubrawtx=tcp://127.0.0.1:28333\n').config;
  assert.deepEqual(twice.options.zmqpubrawtx, ['tcp://127.0.0.1:28332', 'tcp://127.0.0.1:28333']);
  assert.deepEqual(twice.options.rpcbind, ['127.0.0.1', '::1'], 'unset lists keep their default');
});

test('the network can be selected in the file; contradicting selections are an error', () => {
  assert.equal(load([], 'regtest=1\n').config.network.name, 'regtest');
  assert.equal(load([], 'chain=test\n').config.network.name, 'test');
  assert.equal(load([], 'testnet=0\n').config.network.name, 'main');
  assert.equal(load(['-noregtest'], 'regtest=1\n').config.network.name, 'main', 'the command line overrides the file');
  assert.equal(load(['-chain=regtest'], 'chain=test\n').config.network.name, 'regtest');
  const invalid = 'Invalid combination of -regtest, -testnet and -chain. Can use at most one.';
  fails(['-testnet'], 'regtest=1\n', invalid, 'chain');
  fails(['-regtest', '-chain=regtest'], undefined, invalid, 'chain');
  fails([], 'chain=main\ntestnet=1\n', invalid, 'chain');
  fails(['-chain=signet'], undefined, "Invalid value for -chain: 'signet' (expected one of main, test, regtest)");
});

test('-conf: relative to the data directory, must exist when named, -noconf reads nothing', () => {
  const dir = dataDir('rpcport=1\n');
  writeFileSync(join(dir, 'other.conf'), 'rpcport=2\n');
  assert.equal(loadConfig([`-datadir=${dir}`], {}).options.rpcport, 1);
  const other = loadConfig([`-datadir=${dir}`, '-conf=other.conf'], {});
  assert.equal(other.options.rpcport, 2);
  assert.equal(other.paths.confFile, join(dir, 'other.conf'));
  assert.equal(loadConfig([`-datadir=${dir}`, `-conf=${join(dir, 'other.conf')}`], {}).options.rpcport, 2);
  const none = loadConfig([`-datadir=${dir}`, '-noconf'], {});
  assert.equal(none.options.rpcport, 16180);
  assert.equal(none.paths.confFile, null);
  assert.throws(() => loadConfig([`-datadir=${dir}`, '-conf=missing.conf'], {}), {
    message: `specified config file "${join(dir, 'missing.conf')}" could not be opened (ENOENT).`,
  });
  mkdirSync(join(dir, 'adir.conf'));
  assert.throws(() => loadConfig([`-datadir=${dir}`, '-conf=adir.conf'], {}), { message: `Config file "${join(dir, 'adir.conf')}" is a directory.` });
  assert.equal(load([]).config.options.rpcport, 16180, 'a missing default cs.conf is fine');
});

/** A home directory whose default data directory ~/.cs holds `conf` as cs.conf. */
function home(conf: string): string {
  const dir = dataDir();
  mkdirSync(join(dir, '.cs'));
  writeFileSync(join(dir, '.cs', 'cs.conf'), conf);
  return dir;
}

test('datadir in cs.conf moves the data but not the configuration file; -datadir beats it', () => {
  const elsewhere = dataDir();
  const h = home(`datadir=${elsewhere}\n`);
  const config = loadConfig(['-regtest'], { HOME: h });
  assert.equal(config.paths.dataDir, elsewhere);
  assert.equal(config.paths.networkDir, join(elsewhere, 'regtest'));
  assert.equal(config.paths.confFile, join(h, '.cs', 'cs.conf'));
  const { dir, config: given } = load([], `datadir=${elsewhere}\n`);
  assert.equal(given.paths.dataDir, dir);
});

test('-rpccookiefile is resolved against the network folder; -norpccookiefile means none', () => {
  const { dir, config } = load(['-regtest', '-rpccookiefile=auth/cookie']);
  assert.equal(config.paths.cookieFile, join(dir, 'regtest', 'auth', 'cookie'));
  assert.equal(load(['-rpccookiefile=/run/cs/.cookie']).config.paths.cookieFile, '/run/cs/.cookie');
  assert.equal(load(['-norpccookiefile']).config.paths.cookieFile, null);
});

test("cs-cli's keys are tolerated in the shared cs.conf, and cs-cli ignores the node's", () => {
  const conf = 'rpcconnect=10.0.0.1\nrpcwait=1\nnamed=1\nrpcallowip=10.0.0.0/8\nzmqpubrawtx=tcp://*:28332\nrpcport=7777\n';
  const node = load([], conf).config;
  assert.equal(node.options.rpcport, 7777);
  assert.deepEqual(node.options.rpcallowip, ['10.0.0.0/8']);
  const dir = dataDir(conf);
  const cli = loadSettings(CLI_OPTIONS, [`-datadir=${dir}`], {}, { tolerated: () => true });
  assert.equal(cli.values.rpcconnect, '10.0.0.1');
  assert.equal(cli.values.rpcwait, true);
  assert.equal(cli.values.rpcport, 7777);
});

test('unknown sections are reported as warnings; reindex in the file warns', () => {
  const { config } = load([], '[signet]\nrpcport=1\nreindex=1\n');
  assert.equal(config.options.rpcport, 16180);
  assert.match(config.warnings.join('\n'), /Section \[signet\] is not recognized \(.*cs\.conf line 1\)\./);
  assert.equal(load([], 'reindex=1\n').config.warnings.length, 1);
});

test('command-line errors name the option', () => {
  fails(['-foo'], undefined, 'Invalid parameter -foo', 'command line');
  fails(['-foo=1'], undefined, 'Invalid parameter -foo');
  fails(['-nofoo'], undefined, 'Invalid parameter -nofoo');
  fails(['-regtest.rpcport=1'], undefined, 'Invalid parameter -regtest.rpcport');
  fails(['-rpcport=abc'], undefined, "Invalid value for -rpcport: 'abc' (expected an integer 1..65535)");
  fails(['-rpcport=0'], undefined, "Invalid value for -rpcport: '0' (expected an integer 1..65535)");
  fails(['-rpcport'], undefined, "Invalid value for -rpcport: '' (expected an integer 1..65535)");
  fails(['-server=yes'], undefined, "Invalid value for -server: 'yes' (expected 0 or 1)");
  fails(['-loglevel=verbose'], undefined, "Invalid value for -loglevel: 'verbose' (expected one of error, warn, info, debug, trace)");
  fails(['-minrelaytxfee=0.1.2'], undefined, "Invalid value for -minrelaytxfee: '0.1.2' (expected an amount in coins, at most 8 decimals)");
  fails(['-rpcallowip=10.0.0.0/33'], undefined, /^Invalid value for -rpcallowip: '10.0.0.0\/33' \(expected a single IP/);
  fails(
    ['-zmqpubhashblock=127.0.0.1:28332'],
    undefined,
    "Invalid value for -zmqpubhashblock: '127.0.0.1:28332' (expected tcp://host:port or ipc://path)",
  );
  fails(['-rpcbind=bad host'], undefined, /^Invalid value for -rpcbind: 'bad host'/);
  fails(['-maxmempool=1'], undefined, "Invalid value for -maxmempool: '1' (expected an integer >= 5)");
  fails(['-blockmaxweight=4000001'], undefined, "Invalid value for -blockmaxweight: '4000001' (expected an integer 4000..4000000)");
  fails(['-nodatadir'], undefined, 'Negating of -datadir is meaningless and therefore forbidden');
  fails(['-norpcport'], undefined, 'Negating of -rpcport is meaningless and therefore forbidden');
  fails(['-nozmqpubrawtx=0'], undefined, /^Invalid value for -nozmqpubrawtx: '0' \(expected 1: a double negative/);
  fails(['-noserver=maybe'], undefined, "Invalid value for -noserver: 'maybe' (expected 0 or 1)");
});

test('cs.conf errors name the option and the line', () => {
  const at = (line: number) => new RegExp(`in .*cs\\.conf line ${line}$`);
  fails([], 'server=1\nfoo=1\n', /^Invalid configuration value foo in .*cs\.conf line 2$/, 'config file');
  fails([], '[regtest]\nfoo=1\n', /^Invalid configuration value regtest\.foo /);
  fails([], 'rpcport=abc\n', /^Invalid value for -rpcport: 'abc' \(expected an integer 1\.\.65535\) in .*line 1$/);
  fails([], '\n\nwsport=70000\n', at(3));
  fails([], 'conf=other.conf\n', /^-conf cannot be set in the configuration file in /);
  fails([], '[test]\nregtest=1\n', /^-regtest cannot be set in a network section of the configuration file in /);
  fails([], '[main]\ndatadir=/tmp\n', /^-datadir cannot be set in a network section/);
  fails([], 'nodbcache=1\n', /^Negating of -dbcache is meaningless and therefore forbidden in .*line 1$/);
  fails([], '-rpcport=1\n', 'parse error on line 1: -rpcport=1, options in configuration file must be specified without leading -');
  fails([], 'server=1\nnolisten\n', 'parse error on line 2: nolisten, if you intended to specify a negated option, use nolisten=1 instead');
  fails([], 'rpcport\n', 'parse error on line 1: rpcport');
  fails([], 'rpcpassword=abc#def\n', 'parse error on line 1, using # in rpcpassword can be ambiguous and should be avoided');
});

test('options that belong to one network are refused on the others', () => {
  assert.equal(load(['-regtest', '-mocktime=1700000000']).config.options.mocktime, 1700000000);
  fails(['-mocktime=1700000000'], undefined, '-mocktime is only allowed with -regtest', 'chain');
  fails(['-acceptnonstdtxn'], undefined, 'acceptnonstdtxn is not currently supported for main chain');
  assert.equal(load(['-testnet', '-acceptnonstdtxn=0']).config.options.acceptnonstdtxn, false);
});

test('a data directory that is a file is refused', () => {
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  assert.throws(() => loadConfig([`-datadir=${file}`], {}), { message: `Specified data directory "${file}" is not a directory.` });
  assert.throws(() => loadConfig([], { HOME: home(`datadir=${file}\n`) }), {
    message: `Specified data directory "${file}" is not a directory.`,
  });
});

test('-help and -version are read from the command line alone', () => {
  assert.equal(infoRequest(NODE_OPTIONS, ['-regtest', '-h']), 'help');
  assert.equal(infoRequest(NODE_OPTIONS, ['-?']), 'help');
  assert.equal(infoRequest(NODE_OPTIONS, ['-help', '-version']), 'version');
  assert.equal(infoRequest(NODE_OPTIONS, ['-rpcport=1']), null);
  assert.equal(infoRequest(NODE_OPTIONS, ['-nohelp']), null);
  assert.throws(() => infoRequest(NODE_OPTIONS, ['-foo', '-help']), { message: 'Invalid parameter -foo' });
});
