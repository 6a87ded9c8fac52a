// The packages as a user gets them: `npm pack` of each, installed into empty folders with npm, then
// run from there: csd and cs-cli from their bins, the packed @cs/client from a plain JavaScript
// project and from a TypeScript project with tsc's default tsconfig; cs-miner installed alone,
// which must bring neither lmdb, zeromq nor pg, and cs-bridge, which needs lmdb but neither zeromq
// nor pg. Dependencies come from npm's cache (`npm ci` filled
// it), the registry only for what is missing there.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../packages/csd/test/daemon.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cs-pack-'));
const tarballs = new Map<string, string>();

function npm(args: readonly string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
}

/** A fresh project in `dir` with `packages` installed from their tarballs. */
function project(name: string, packages: readonly string[], extra: readonly string[] = []): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  npm(['install', ...extra, ...packages.map((p) => tarballs.get(p)!)], dir);
  return dir;
}

before(() => {
  const workspaces = ['@cs/consensus', '@cs/runtime', '@cs/client', '@cs/stratum', '@cs/csd', '@cs/miner', '@cs/bridge'];
  const packed = JSON.parse(npm(['pack', '--json', `--pack-destination=${work}`, ...workspaces.flatMap((w) => ['-w', w])], root)) as {
    name: string;
    filename: string;
    files: { path: string }[];
  }[];
  for (const p of packed) {
    tarballs.set(p.name, join(work, p.filename));
    assert.ok(
      p.files.every((f) => !f.path.startsWith('src/') && !f.path.endsWith('.test.js')),
      `${p.name} ships its built code only: ${p.files.map((f) => f.path).filter((f) => f.startsWith('src/'))}`,
    );
  }
});

after(() => rmSync(work, { recursive: true, force: true }));

let csd: ChildProcess | null = null;
after(() => csd?.kill('SIGKILL'));

test('packed csd and cs-cli install into an empty folder and run; the packed client talks to that csd from JavaScript and TypeScript', async () => {
  const app = project('node-app', ['@cs/consensus', '@cs/runtime', '@cs/client', '@cs/csd']);
  const bin = (name: string) => join(app, 'node_modules', '.bin', name);
  assert.match(execFileSync(bin('csd'), ['-version'], { encoding: 'utf8' }), /^cs node daemon version v0\.1\.0/);

  const datadir = join(work, 'csd-data');
  mkdirSync(datadir);
  const rpcport = await freePort();
  const auth = ['-rpcuser=pack', '-rpcpassword=packed'];
  csd = spawn(bin('csd'), ['-regtest', `-datadir=${datadir}`, `-rpcport=${rpcport}`, `-port=${await freePort()}`, '-bind=127.0.0.1', ...auth], {
    stdio: 'ignore',
  });
  const cli = (...args: string[]) =>
    execFileSync(bin('cs-cli'), ['-regtest', `-datadir=${datadir}`, `-rpcport=${rpcport}`, ...auth, ...args], { encoding: 'utf8' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      assert.equal(cli('-rpcwait', 'getblockcount').trim(), '0');
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  // A plain JavaScript project, as `npm init` makes it (CommonJS), with the client alone.
  const js = project('js-app', ['@cs/client']);
  assert.ok(!existsSync(join(js, 'node_modules', 'lmdb')), 'the client does not bring the node');
  writeFileSync(
    join(js, 'index.mjs'),
    `import { RpcClient } from '@cs/client';
const rpc = new RpcClient({ url: 'http://127.0.0.1:${rpcport}/', auth: { user: 'pack', password: 'packed' } });
const info = await rpc.call('getblockchaininfo');
console.log(JSON.stringify({ chain: info.chain, blocks: info.blocks }));
`,
  );
  assert.deepEqual(JSON.parse(execFileSync(process.execPath, ['index.mjs'], { cwd: js, encoding: 'utf8' })), { chain: 'regtest', blocks: 0 });

  // A TypeScript project with `tsc --init`'s tsconfig: the client's types check a call and refuse a wrong one.
  const ts = project('ts-app', ['@cs/client'], [join(root, 'node_modules', 'typescript')]);
  execFileSync(process.execPath, [join(ts, 'node_modules', 'typescript', 'bin', 'tsc'), '--init'], { cwd: ts });
  const manifest = JSON.parse(readFileSync(join(ts, 'package.json'), 'utf8'));
  writeFileSync(join(ts, 'package.json'), JSON.stringify({ ...manifest, type: 'module' }));
  writeFileSync(
    join(ts, 'index.ts'),
    `import { RpcClient, RpcError } from '@cs/client';
const rpc = new RpcClient({ url: 'http://127.0.0.1:${rpcport}/', auth: { user: 'pack', password: 'packed' } });
const height: number = await rpc.call('getblockcount');
// @ts-expect-error getblockhash takes a height, not a string: the packed types say so (never called)
const wrong = () => rpc.call('getblockhash', ['zero']);
void wrong;
const hash: string = await rpc.call('getblockhash', [height]);
try {
  await rpc.call('getblock', ['00']);
} catch (e) {
  console.log(JSON.stringify({ height, hash: hash.length, code: e instanceof RpcError ? e.code : null }));
}
`,
  );
  execFileSync(process.execPath, [join(ts, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: ts, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(execFileSync(process.execPath, ['index.js'], { cwd: ts, encoding: 'utf8' })), { height: 0, hash: 64, code: -8 });

  csd.kill('SIGTERM');
  await new Promise((r) => csd!.once('exit', r));
  csd = null;
});

test('packed cs-miner installs alone without lmdb, zeromq or pg, and answers -help', () => {
  // The optional GPU engine (node-llama-cpp, ~700 MB) is left out, as a CPU-only user may.
  const miner = project('miner-app', ['@cs/consensus', '@cs/runtime', '@cs/stratum', '@cs/miner'], ['--omit=optional']);
  for (const heavy of ['lmdb', 'zeromq', 'pg', '@cs/csd'])
    assert.ok(!existsSync(join(miner, 'node_modules', heavy)), `cs-miner does not install ${heavy}`);
  assert.match(execFileSync(join(miner, 'node_modules', '.bin', 'cs-miner'), ['-help'], { encoding: 'utf8' }), /-pool=stratum\+tcp/);
});

test('packed cs-bridge installs without zeromq, pg or the node, and answers -help', () => {
  const bridge = project('bridge-app', ['@cs/consensus', '@cs/runtime', '@cs/client', '@cs/stratum', '@cs/bridge']);
  for (const heavy of ['zeromq', 'pg', '@cs/csd']) assert.ok(!existsSync(join(bridge, 'node_modules', heavy)), `cs-bridge does not install ${heavy}`);
  assert.match(execFileSync(join(bridge, 'node_modules', '.bin', 'cs-bridge'), ['-help'], { encoding: 'utf8' }), /-env=/);
});
