/**
 * Configuration the network writes before a program starts: each node's cs.conf (rewritten at
 * every start from the ports, so a changed base port applies), the generated model, the miners'
 * payout addresses.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tinyLlamaGguf } from '@cs/miner/gguf';
import { readEnvFile } from '@cs/bridge/setup';
import type { Network } from '../network/network.ts';
import type { Progress } from '../supervisor/progress.ts';

/** The seed of the generated model: the same bytes on every machine, so answers can be compared. */
const TINY_MODEL_SEED = 7;

export function writeNodeConf(net: Network, n: 1 | 2): void {
  const files = net.node(n);
  mkdirSync(files.datadir, { recursive: true });
  const p = (name: Parameters<Network['port']>[0]) => net.port(name);
  const lines = [
    '# Written by cs-network at every start (docs/cs-network.md): edits here are overwritten.',
    '[regtest]',
    '# Loopback only: this is a local network.',
    'bind=127.0.0.1',
    `port=${p(n === 1 ? 'node1P2p' : 'node2P2p')}`,
    `rpcport=${p(n === 1 ? 'node1Rpc' : 'node2Rpc')}`,
    `wsport=${p(n === 1 ? 'node1Ws' : 'node2Ws')}`,
    'rest=1',
    '# The pool and the bridge poll the node; a rate limit would throttle them.',
    'rpcratelimit=0',
    '# The dashboard relays every browser through one address.',
    'restratelimit=0',
    '# Regtest has no fee history: the wallets (bridge payments, requests) need a rate.',
    'fallbackfee=0.0002',
    'printtoconsole=0',
    // The other node is on loopback and trusted: transactions go to it at once, not at
    // Core's Poisson times (2 s on average), which would spend most of an OPoI request's 4-block
    // reveal window on the way from bridge 2's node to the pool's. Both directions: node 2
    // reaches node 1 on a connection of its own (addnode), node 1 node 2 on the one it accepted.
    'whitelist=noban,in,out@127.0.0.1',
    // Node 1 feeds the pool its new blocks and templates, rebuilt at each new transaction: with
    // Core's 5 s cache, a transaction waited for the next block (about a second here) before a
    // job held it, one of an OPoI window's 4 blocks. Node 2 follows node 1.
    ...(n === 1 ? [`zmqpubhashblock=tcp://127.0.0.1:${p('node1Zmq')}`, 'blocktemplaterefresh=0'] : [`addnode=127.0.0.1:${p('node1P2p')}`]),
    '',
  ];
  writeFileSync(files.confFile, lines.join('\n'), { mode: 0o600 });
}

/** The generated tiny model, written once (unless -model-path names a real one). */
export async function ensureModel(net: Network, progress: Progress): Promise<void> {
  if (net.state.modelPath !== null) {
    if (!existsSync(net.state.modelPath)) throw new Error(`-model-path ${net.state.modelPath} does not exist`);
    return;
  }
  if (existsSync(net.modelPath)) return;
  progress.step(`generating the tiny model ${net.modelPath}`);
  mkdirSync(dirname(net.modelPath), { recursive: true });
  writeFileSync(`${net.modelPath}.tmp`, tinyLlamaGguf(TINY_MODEL_SEED));
  renameSync(`${net.modelPath}.tmp`, net.modelPath);
}

/** Miner `i`'s payout address, made once in node 2's wallet and kept in network.json. */
export async function minerAddress(net: Network, i: number): Promise<void> {
  if (net.state.minerAddresses.length >= i) return;
  const rpc = net.rpc(2);
  try {
    const address = await rpc.call('getnewaddress', [`miner${i}`]);
    net.save({ ...net.state, minerAddresses: [...net.state.minerAddresses, address] });
  } finally {
    rpc.close();
  }
}

/** cs-dashboard's conf (docs/dashboard.md): both nodes by cookie, the pool API, the bridge API and its key. */
export function writeDashboardConf(net: Network): void {
  const node = (n: 1 | 2) => ({
    name: `node${n}`,
    rpcUrl: net.node(n).rpcUrl,
    rpcCookieFile: net.node(n).cookieFile,
    restUrl: net.node(n).rpcUrl,
    wsUrl: `ws://127.0.0.1:${net.port(n === 1 ? 'node1Ws' : 'node2Ws')}`,
  });
  const conf = {
    listen: `127.0.0.1:${net.port('dashboard')}`,
    nodes: [node(1), node(2)],
    pool: { apiUrl: net.poolApiUrl },
    // Bridge 1: the ask form's requests name it as executor, and bridge 2 audits its VERIFIABLE answers.
    bridge: { apiUrl: net.bridge(1).apiUrl, apiKey: readEnvFile(net.bridge(1).envFile).OPOI_REQUESTER_API_KEY ?? '' },
  };
  mkdirSync(dirname(net.dashboardConfFile), { recursive: true });
  writeFileSync(net.dashboardConfFile, `${JSON.stringify(conf, null, 2)}\n`, { mode: 0o600 });
}
