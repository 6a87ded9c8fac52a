// The setup wizard driven through a real pseudo-terminal (util-linux `script`) against a real csd:
// Manual writes the documented owner-only file and exits; Automatic asks each value (existing ones
// kept), generates the API key, prints the chain height, lists the UTXOs, saves the chosen one and
// the bridge starts; a complete file without a stake asks only the stake step; a wallet without
// coins of the address is told to fund it; without a terminal nothing waits for an answer.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readEnvFile } from '../src/config/env.ts';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import { BRIDGE_BIN, eventually } from './bridge-harness.ts';

let node: Daemon;
const dir = mkdtempSync(join(tmpdir(), 'cs-bridge-wizard-'));
let n = 0;

before(async () => {
  node = new Daemon({ args: ['-rpcratelimit=0', '-fallbackfee=0.0002'] });
  await node.start();
  await node.call('generatetoaddress', 101, await node.call<string>('getnewaddress'));
});

after(async () => {
  await node?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A program run in a pseudo-terminal: what it printed, and lines typed as its questions come. */
class Terminal {
  output = '';
  private read = 0;
  readonly proc: ChildProcess;
  readonly exit: Promise<number | string>;

  constructor(args: string[]) {
    const command = [process.execPath, BRIDGE_BIN, ...args].map((a) => `'${a}'`).join(' ');
    this.proc = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exit = new Promise((r) => this.proc.once('exit', (code, signal) => r(code ?? signal ?? 0)));
  }

  /** Waits for `text` after what earlier expects consumed. */
  async expect(text: string): Promise<void> {
    await eventually(
      async () => {
        const at = this.output.indexOf(text, this.read);
        if (at < 0) return undefined;
        this.read = at + text.length;
        return true;
      },
      `"${text}" in the terminal (so far: ${this.output.slice(this.read)})`,
    );
  }

  type(line: string): void {
    this.proc.stdin!.write(`${line}\r`);
  }

  kill(): void {
    try {
      process.kill(-this.proc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function envFile(values: Record<string, string>): string {
  const path = join(dir, `env-${++n}`);
  writeFileSync(
    path,
    Object.entries(values)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
    { mode: 0o644 },
  );
  return path;
}

async function fundedAddress(coins: number): Promise<string> {
  const address = await node.call<string>('getnewaddress');
  if (coins > 0) {
    await node.call('sendtoaddress', address, coins);
    await node.call('generatetoaddress', 1, await node.call<string>('getnewaddress'));
  }
  return address;
}

test('Manual writes the documented env file, owner-only, and exits', async () => {
  const path = join(dir, 'manual.env');
  const t = new Terminal([`-env=${path}`]);
  await t.expect('m/a [a]: ');
  t.type('m');
  await t.expect('fill in the empty values');
  assert.equal(await t.exit, 0);
  assert.equal(statSync(path).mode & 0o777, 0o600, 'the env file is owner-only');
  const text = readFileSync(path, 'utf8');
  for (const name of [
    'UPSTREAM_POOL_ADDR',
    'CSD_RPC_URL',
    'CSD_RPC_USER',
    'CSD_RPC_PASS',
    'OPOI_ADDRESSES',
    'OPOI_REQUESTER_API_KEY',
    'LISTEN_ADDR',
  ]) {
    assert.match(text, new RegExp(`^${name}=`, 'm'), `${name} is in the file`);
  }
});

test('Automatic asks each value, keeps existing ones, generates the key, lists UTXOs, and the bridge starts', async () => {
  const address = await fundedAddress(3);
  const [coin] = await node.call<{ txid: string; vout: number }[]>('listunspent', 1, 9_999_999, [address]);
  const listen = `127.0.0.1:${await freePort()}`;
  const path = envFile({ UPSTREAM_POOL_ADDR: '127.0.0.1:1', DATA_DIR: join(dir, 'data-auto'), API_LISTEN_ADDR: `127.0.0.1:${await freePort()}` });
  const t = new Terminal([`-env=${path}`]);
  try {
    await t.expect('m/a [a]: ');
    t.type('a');
    await t.expect('UPSTREAM_POOL_ADDR');
    await t.expect('[127.0.0.1:1]: ');
    t.type('');
    await t.expect('CSD_RPC_URL');
    await t.expect('[http://127.0.0.1:16180]: ');
    t.type(`http://127.0.0.1:${node.rpcPort}`);
    await t.expect('CSD_RPC_USER');
    t.type(node.user);
    await t.expect('CSD_RPC_PASS');
    t.type(node.password);
    await t.expect('OPOI_ADDRESSES');
    t.type(address);
    await t.expect('OPOI_REQUESTER_API_KEY');
    t.type('');
    await t.expect('Generated OPOI_REQUESTER_API_KEY');
    await t.expect('LISTEN_ADDR');
    t.type(listen);
    const height = await node.call<number>('getblockcount');
    await t.expect(`chain height ${height}`);
    await t.expect('#  txid');
    await t.expect('address');
    await t.expect('Number of the UTXO to stake, or s to skip [s]: ');
    t.type('1');
    await t.expect(`cs-bridge started; node reachable at height ${height}`);
    const values = readEnvFile(path);
    assert.equal(statSync(path).mode & 0o777, 0o600, 'the env file is owner-only');
    assert.equal(values.UPSTREAM_POOL_ADDR, '127.0.0.1:1', 'the existing value was kept');
    assert.equal(values.LISTEN_ADDR, listen);
    assert.match(
      t.output,
      new RegExp(`Generated OPOI_REQUESTER_API_KEY \\(shown once; requesters send it in x-opoi-api-key\\): ${values.OPOI_REQUESTER_API_KEY}`),
    );
    assert.equal(values.OPOI_STAKE_UTXO, `${coin.txid}:${coin.vout}`);
  } finally {
    t.kill();
    await t.exit;
  }
});

async function completeEnv(address: string): Promise<string> {
  return envFile({
    UPSTREAM_POOL_ADDR: '127.0.0.1:1',
    CSD_RPC_URL: `http://127.0.0.1:${node.rpcPort}`,
    CSD_RPC_USER: node.user,
    CSD_RPC_PASS: node.password,
    OPOI_ADDRESSES: address,
    OPOI_REQUESTER_API_KEY: 'k'.repeat(20),
    LISTEN_ADDR: `127.0.0.1:${await freePort()}`,
    API_LISTEN_ADDR: `127.0.0.1:${await freePort()}`,
    DATA_DIR: join(dir, `data-${n}`),
  });
}

test('a complete file without a stake asks only the stake step; skipping it exits', async () => {
  const path = await completeEnv(await fundedAddress(2));
  const t = new Terminal([`-env=${path}`]);
  await t.expect('chain height');
  await t.expect('Number of the UTXO to stake, or s to skip [s]: ');
  t.type('s');
  await t.expect('Skipped');
  assert.equal(await t.exit, 0);
  assert.ok(!t.output.includes('m/a'), 'no Manual/Automatic question when the file is complete');
  assert.equal(readEnvFile(path).OPOI_STAKE_UTXO, undefined, 'nothing written when skipped');
});

test('no UTXOs: the wizard says so and asks to fund the wallet and rerun', async () => {
  const t = new Terminal([`-env=${await completeEnv(await fundedAddress(0))}`]);
  await t.expect('No UTXOs available');
  await t.expect('Fund it');
  assert.equal(await t.exit, 0);
});

test('without a terminal nothing waits for an answer: incomplete file, setup, and no stake all exit 1 at once', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const p = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      p.stdout.on('data', (d: Buffer) => (output += d.toString()));
      p.stderr.on('data', (d: Buffer) => (output += d.toString()));
      p.once('exit', (code) => resolve({ code, output }));
    });
  const incomplete = envFile({ UPSTREAM_POOL_ADDR: '127.0.0.1:1' });
  const a = await run([`-env=${incomplete}`]);
  assert.equal(a.code, 1);
  assert.match(a.output, /lacks CSD_RPC_USER, CSD_RPC_PASS, OPOI_ADDRESSES, OPOI_REQUESTER_API_KEY: run "cs-bridge setup" in a terminal/);
  const b = await run(['setup', `-env=${incomplete}`]);
  assert.equal(b.code, 1);
  assert.match(b.output, /the setup wizard needs a terminal/);
  const c = await run([`-env=${await completeEnv(await fundedAddress(1))}`]);
  assert.equal(c.code, 1);
  assert.match(c.output, /has no stake: run "cs-bridge setup" to pick the collateral, or set OPOI_STAKE_UTXO/);
});
