// The miner's stratum client against a test server that plays the pool's part of each message:
// notify without the algorithm fields, set_target, set_extranonce and client.reconnect must each
// change what the miner submits, which only a miner that honours them can do. Real cs-pool and
// csd, with TLS, failover and restarts, are in pool.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, test } from 'node:test';
import { MinerProcess, runMiner } from './miner-process.ts';
import { SHARE_TARGET, TestStratumServer, until } from './test-stratum-server.ts';

const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(options: ConstructorParameters<typeof TestStratumServer>[0] = {}): Promise<TestStratumServer> {
  const s = new TestStratumServer(options);
  await s.listen();
  cleanup.push(() => s.close());
  return s;
}

function miner(ports: readonly number[], extra: readonly string[] = []): MinerProcess {
  const m = new MinerProcess([...ports.map((p) => `-pool=stratum+tcp://127.0.0.1:${p}`), '-user=csrt1qminer.rig', '-threads=1', ...extra]);
  cleanup.push(() => m.stop());
  return m;
}

test('a notify without ALGO_TYPE/PERSONALIZATION is mined with -algo', async () => {
  const s = await server({ withoutAlgorithm: true });
  const m = miner([s.port], ['-algo=48_5']);
  await until(() => s.validShares >= 3, 'shares');
  assert.equal(s.invalidShares, 0, 'every share valid for (48,5)');
  const status = await m.waitForStatus('accepted', 3);
  assert.equal(status.algo, '48_5');
});

/** CPU seconds the process `pid` has used, user and system (/proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

test('-cpulimit=2.5: the solver thread sleeps most of the time and shares still arrive', async () => {
  const s = await server();
  const m = miner([s.port], ['-cpulimit=2.5']);
  const started = await m.waitFor((l) => l.msg === 'cs-miner started', 'the start');
  assert.equal(started.cpulimit, 2.5);
  await until(() => s.validShares >= 1, 'a share');
  const cpu0 = cpuSeconds(m.pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const share = (cpuSeconds(m.pid) - cpu0) / ((performance.now() - t0) / 1000);
  // Unlimited, the one solver thread keeps a core busy (about 1.0); limited, a few hundredths of it.
  assert.ok(share < 0.5, `the miner used ${share.toFixed(2)} of a core`);
  const before = s.validShares;
  await until(() => s.validShares > before, 'more shares');
  assert.equal(s.invalidShares, 0);
});

test('set_target: after an easier target, shares the old target would have refused arrive', async () => {
  const s = await server();
  s.target = SHARE_TARGET / 8n;
  miner([s.port]);
  await until(() => s.validShares >= 1, 'a share at the hard target');
  s.setTarget(SHARE_TARGET * 4n);
  await until(() => s.sharesOverPreviousTarget >= 3, 'shares only the new target accepts');
  assert.equal(s.invalidShares, 0, 'no share under either target refused');
});

test('set_extranonce: shares move to the new NONCE_1', async () => {
  const s = await server();
  miner([s.port]);
  await until(() => s.validShares >= 2, 'shares on the first NONCE_1');
  const [fresh] = s.setExtranonce();
  await until(() => (s.sharesByNonce1.get(fresh) ?? 0) >= 3, 'shares on the new NONCE_1');
  assert.equal(s.invalidShares, 0, 'no share refused');
});

test('client.reconnect to another address: the miner goes there', async () => {
  const first = await server();
  const second = await server();
  const m = miner([first.port]);
  await until(() => first.validShares >= 1, 'a share on the first server');
  first.reconnect('127.0.0.1', second.port, 0);
  await m.waitFor((l) => l.msg === 'pool asked to reconnect' && l.to === `stratum+tcp://127.0.0.1:${second.port}`, 'the reconnect');
  await until(() => second.validShares >= 2, 'shares on the second server');
  assert.equal(second.invalidShares, 0, 'no share refused');
});

test('configuration errors: one line on stderr, exit status 1, nothing started', async () => {
  for (const [args, message] of [
    [[], /no pool/],
    [['-pool=stratum+tcp://127.0.0.1:1'], /no login/],
    [['-pool=http://x', '-user=a.b'], /Invalid value for -pool/],
    [['-pool=127.0.0.1:1', '-user=a.b', '-model=x=gpt:http://h'], /Invalid value for -model/],
    [['-pool=127.0.0.1:1', '-user=a.b', '-model=x=ollama:http://h', '-model=x=openai:http://h'], /configured twice/],
    [['-pool=127.0.0.1:1', '-user=a.b', '-model-path=/nonexistent/tiny.gguf'], /cannot load \/nonexistent\/tiny.gguf/],
    [['-pool=127.0.0.1:1', '-user=a.b', '-cpulimit=0'], /Invalid value for -cpulimit.*above 0 and up to 100/],
    [['-pool=127.0.0.1:1', '-user=a.b', '-cpulimit=100.5'], /Invalid value for -cpulimit/],
  ] as const) {
    const r = await runMiner(args);
    assert.equal(r.code, 1, `${args.join(' ')}: exit status`);
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stdout, '', `${args.join(' ')}: nothing logged`);
  }
  const help = await runMiner(['-help']);
  assert.equal(help.code, 0, '-help exit status');
  assert.match(help.stdout, /-model=<name>=<backend>/);
});
