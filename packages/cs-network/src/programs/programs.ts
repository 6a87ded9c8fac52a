/**
 * The programs of the network, in start order, as data: how each is configured and started, when
 * it counts as up, which files explain its death, and which URLs it serves. Adding a program is
 * one entry here (and its ports in PORT_OFFSETS); the supervisor, the URL list and `status` follow.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readEnvFile } from '@cs/bridge/setup';
import type { BridgeNumber, Network } from '../network/network.ts';
import { ensureModel, minerAddress, writeDashboardConf, writeNodeConf } from '../setup/files.ts';
import { BRIDGE_TO_POOL_HOST, bridgeProcessEnv, mineToMaturity, stakeBridge, writeBridgeEnv } from '../setup/chain.ts';
import { modelIdentity, registerManifest } from '../setup/manifest.ts';
import type { Progress } from '../supervisor/progress.ts';

export interface Endpoint {
  readonly label: string;
  readonly value: string;
}

export interface Program {
  /** Short name: the log file, the pid file entry and `status` use it. */
  readonly name: string;
  readonly title: string;
  /** The package's bin, started with this Node.js as the other programs' tests start them. */
  readonly bin: string;
  /** Writes the program's configuration and runs the setup steps it depends on. */
  prepare?(net: Network, progress: Progress): Promise<void>;
  args(net: Network): string[];
  /** The process environment (default: cs-network's own). */
  env?(net: Network): NodeJS.ProcessEnv;
  /** True once it serves; polled until then. */
  ready(net: Network): Promise<boolean>;
  /** What it needs from the programs started after it, waited for once all are started. */
  readonly working?: { readonly what: string; check(net: Network): Promise<boolean> };
  /** Files whose last lines explain an unexpected exit (its stdout/stderr log always comes first). */
  logs(net: Network): string[];
  endpoints(net: Network): Endpoint[];
  /** One line for `status`, asked of the running program. */
  state?(net: Network): Promise<string>;
}

const require = createRequire(import.meta.url);

/** The absolute path of a workspace package's bin. */
function binOf(pkg: string, name: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bins = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), bins[name]);
}

async function answers(url: string, okOnly = true): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return okOnly ? res.ok : true;
  } catch {
    return false;
  }
}

async function nodeState(net: Network, n: 1 | 2): Promise<string> {
  const rpc = net.rpc(n, 5_000);
  try {
    const [height, peers] = await Promise.all([rpc.call('getblockcount'), rpc.call('getconnectioncount')]);
    return `height ${height}, ${peers} peer${peers === 1 ? '' : 's'}`;
  } finally {
    rpc.close();
  }
}

async function poolState(net: Network): Promise<string> {
  const stats = (await (await fetch(`${net.poolApiUrl}/api/pool/stats`)).json()) as {
    connectedMiners: number;
    hashrate: number;
    blocks: Record<string, number>;
  };
  const blocks = Object.entries(stats.blocks)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  return `${stats.connectedMiners} miners, ${stats.hashrate.toFixed(1)} Sol/s, blocks found: ${blocks}`;
}

async function rpcAnswers(net: Network, n: 1 | 2): Promise<boolean> {
  const rpc = net.rpc(n, 5_000);
  try {
    await rpc.call('getblockcount');
    return true;
  } catch {
    return false;
  } finally {
    rpc.close();
  }
}

/** Bridge `n`'s /healthz body, or null while it does not answer. */
export async function bridgeHealth(
  net: Network,
  n: BridgeNumber,
): Promise<{ status: string; stake: string; node_height: number; miners: number; opoi_miners: number } | null> {
  try {
    const res = await fetch(`${net.bridge(n).apiUrl}/healthz`);
    return (await res.json()) as { status: string; stake: string; node_height: number; miners: number; opoi_miners: number };
  } catch {
    return null;
  }
}

function node(n: 1 | 2): Program {
  const rpcPort = n === 1 ? 'node1Rpc' : 'node2Rpc';
  const wsPort = n === 1 ? 'node1Ws' : 'node2Ws';
  return {
    name: `node${n}`,
    title: `csd node ${n}`,
    bin: binOf('@cs/csd', 'csd'),
    prepare: async (net) => writeNodeConf(net, n),
    args: (net) => ['-regtest', `-datadir=${net.node(n).datadir}`],
    ready: (net) => rpcAnswers(net, n),
    logs: (net) => [net.node(n).debugLog],
    state: (net) => nodeState(net, n),
    endpoints: (net) => [
      { label: `node ${n} JSON-RPC`, value: `${net.node(n).rpcUrl}/ (cookie ${net.node(n).cookieFile})` },
      { label: `node ${n} REST`, value: `http://127.0.0.1:${net.port(rpcPort)}/rest/chaininfo.json` },
      { label: `node ${n} WebSocket`, value: `ws://127.0.0.1:${net.port(wsPort)}` },
    ],
  };
}

/** Miner `i` mines and answers through bridge `i`: each bridge has one miner holding the model. */
function miner(i: BridgeNumber): Program {
  return {
    name: `miner${i}`,
    title: `cs-miner ${i}`,
    bin: binOf('@cs/miner', 'cs-miner'),
    async prepare(net, progress) {
      await ensureModel(net, progress);
      await minerAddress(net, i);
    },
    args: (net) => [
      `-pool=stratum+tcp://127.0.0.1:${net.bridge(i).stratumPort}`,
      `-user=${net.state.minerAddresses[i - 1]}.miner${i}`,
      // One solver thread each, solving 1% of the time: at regtest's fixed easiest target about one
      // (48,5) solution in 17 is a block, and full threads find blocks as fast as the pool and the
      // nodes take them (several a second), which passes an OPoI request's 4-block windows before
      // the bridge's transactions reach a block. At 1% (measured) a block comes about every
      // second, and inference gets the CPU.
      '-threads=1',
      '-cpulimit=1',
      '-algo=48_5',
      `-model-path=${net.modelPath}`,
      '-llama-threads=1',
      '-statusinterval=60',
      // For the tutorial's cheat and the tests (docs/cs-network.md): never remembered.
      ...(i === 1 && net.corruptAnswers !== null ? [`-corruptanswers=${net.corruptAnswers}`] : []),
    ],
    ready: async (net) => ((await bridgeHealth(net, i))?.opoi_miners ?? 0) >= 1,
    logs: () => [],
    endpoints: (net) => [{ label: `miner ${i} paid to`, value: `${net.state.minerAddresses[i - 1]} (node 2's wallet)` }],
  };
}

/**
 * Bridge `n`, in front of the pool, on node `n`'s wallet and WebSocket. Two, so that a VERIFIABLE
 * answer from one has an auditor: the other (auditors are drawn among the manifest's servers,
 * without the winner and the requester). Bridge 1 registers the model's manifest first.
 */
function bridge(n: BridgeNumber): Program {
  const files = (net: Network) => net.bridge(n);
  const bin = binOf('@cs/bridge', 'cs-bridge');
  const label = n === 1 ? 'bridge' : `bridge ${n}`;
  return {
    name: n === 1 ? 'bridge' : `bridge${n}`,
    title: n === 1 ? 'cs-bridge' : `cs-bridge ${n}`,
    bin,
    async prepare(net, progress) {
      await ensureModel(net, progress);
      const { id } = await modelIdentity(net);
      await writeBridgeEnv(net, n, id);
      if (n === 1) await registerManifest(net, bin, progress);
      await stakeBridge(net, n, id, progress);
    },
    args: (net) => [`-env=${files(net).envFile}`],
    env: bridgeProcessEnv,
    ready: async (net) => (await bridgeHealth(net, n)) !== null,
    working: { what: 'an ACTIVE stake', check: async (net) => (await bridgeHealth(net, n))?.status === 'ok' },
    async state(net) {
      const h = await bridgeHealth(net, n);
      if (!h) throw new Error('no answer');
      return `${h.status}, stake ${h.stake}, node height ${h.node_height}, ${h.miners} miners (${h.opoi_miners} serving OPoI)`;
    },
    logs: () => [],
    endpoints: (net) => [
      { label: `${label} stratum`, value: `stratum+tcp://127.0.0.1:${files(net).stratumPort}` },
      { label: `${label} API`, value: `${files(net).apiUrl}/svc/opoi/pending (node ${n}'s wallet)` },
      // The one secret the network prints: requesters need it (x-opoi-api-key).
      { label: `${label} API key`, value: readEnvFile(files(net).envFile).OPOI_REQUESTER_API_KEY ?? '' },
      ...(n === 1 && net.state.manifestId
        ? [{ label: 'model manifest', value: `${net.state.manifestId} (served by both bridges; VERIFIABLE requests name it)` }]
        : []),
    ],
  };
}

export const PROGRAMS: readonly Program[] = [
  node(1),
  node(2),
  {
    name: 'pool',
    title: 'cs-pool',
    bin: binOf('@cs/pool', 'cs-pool'),
    prepare: (net, progress) => mineToMaturity(net, progress),
    args: (net) => [
      '-regtest',
      `-datadir=${net.path('pool')}`,
      `-rpcport=${net.port('node1Rpc')}`,
      `-rpccookiefile=${net.node(1).cookieFile}`,
      `-zmqhashblock=tcp://127.0.0.1:${net.port('node1Zmq')}`,
      '-bind=127.0.0.1',
      `-port=${net.port('poolStratum')}`,
      `-vardiffport=${net.port('poolVardiff')}`,
      '-rentalport=0',
      '-tlsport=0',
      '-soloport=0',
      `-apiport=${net.port('poolApi')}`,
      // Regtest blocks are difficulty 1: at the default 0.001 every solution is a share, hundreds a
      // second from two CPU threads, and checking them starves the pool and the nodes.
      '-diff=0.5',
      // New transactions into the jobs each second, not each 30 s: an OPoI action has a 4-block
      // window and blocks come about every second (node 1 rebuilds its template at once for it).
      '-txrefresh=1',
      // Every miner reaches the pool through cs-bridge, from the bridge's address: one rig's bad
      // lines or logins must not ban the others (docs/pool.md, "Protection").
      `-whitelist=${BRIDGE_TO_POOL_HOST}`,
      '-processinterval=5',
      '-payoutinterval=60',
      // Regtest has no fee history to estimate from.
      '-payoutfeerate=2',
    ],
    ready: (net) => answers(`${net.poolApiUrl}/api/pool/stats`),
    state: poolState,
    logs: () => [],
    endpoints: (net) => [
      { label: 'pool stratum', value: `stratum+tcp://127.0.0.1:${net.port('poolStratum')} (vardiff ${net.port('poolVardiff')})` },
      { label: 'pool API', value: `${net.poolApiUrl}/api/pool/stats` },
    ],
  },
  bridge(1),
  bridge(2),
  miner(1),
  miner(2),
  {
    name: 'dashboard',
    title: 'cs-dashboard',
    bin: binOf('@cs/dashboard', 'cs-dashboard'),
    prepare: async (net) => writeDashboardConf(net),
    args: (net) => [`-conf=${net.dashboardConfFile}`],
    ready: (net) => answers(`${net.dashboardUrl}/api/status`),
    logs: () => [],
    endpoints: (net) => [{ label: 'dashboard', value: `${net.dashboardUrl}/` }],
  },
];
