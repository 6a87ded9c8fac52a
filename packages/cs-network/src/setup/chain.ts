/**
 * The chain steps before the bridges can work: blocks to coinbase maturity, each bridge's
 * environment file (its node's cookie, the ports, the API key made once), and each bridge's stake,
 * serving the model's manifest. Each step looks at what is already there first, so a restarted
 * network neither mines again, nor funds again, nor stakes again.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { REGTEST } from '@cs/consensus';
import { readEnvFile, readStake, spendableUtxos, newApiKey, VARIABLES, writeEnvFile } from '@cs/bridge/setup';
import { readCookie } from '@cs/runtime/datadir';
import type { RpcClient } from '@cs/client';
import type { BridgeNumber, Network } from '../network/network.ts';
import type { Progress } from '../supervisor/progress.ts';

/** One block past maturity: the first coinbase is spendable. */
const MATURE_HEIGHT = REGTEST.coinbaseMaturity + 1;
/** Sent to a bridge's address: the stake (1 coin on regtest) and the fees of its transactions. */
const STAKE_FUNDS = 5;

async function withNode<T>(net: Network, n: 1 | 2, f: (rpc: RpcClient) => Promise<T>): Promise<T> {
  const rpc = net.rpc(n, 120_000);
  try {
    return await f(rpc);
  } finally {
    rpc.close();
  }
}

/** Node 1's own regtest mining (generatetoaddress, to its wallet) up to maturity, with the height as it goes. */
export function mineToMaturity(net: Network, progress: Progress): Promise<void> {
  return withNode(net, 1, async (rpc) => {
    let height = await rpc.call('getblockcount');
    if (height >= MATURE_HEIGHT) return;
    const address = await rpc.call('getnewaddress', ['network']);
    while (height < MATURE_HEIGHT) {
      progress.signal.throwIfAborted();
      const n = Math.min(10, MATURE_HEIGHT - height);
      await rpc.call('generatetoaddress', [n, address]);
      height = await rpc.call('getblockcount');
      progress.step(`mining to maturity: height ${height}/${MATURE_HEIGHT}`);
    }
  });
}

/**
 * The address cs-bridge reaches the pool at, on loopback, and so the address the pool sees every
 * relayed miner come from: the pool whitelists it (programs.ts).
 */
export const BRIDGE_TO_POOL_HOST = '127.0.0.1';

/** cs-network's environment without the bridge's variables: cs-bridge lets those override its file, and the file is the network's. */
export function bridgeProcessEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !VARIABLES.some((v) => v.name === k)));
}

/** Bridge `n`'s environment file, rewritten at every start: its node's cookie changes with each of that node's starts. */
export async function writeBridgeEnv(net: Network, n: BridgeNumber, manifestId: string): Promise<void> {
  const bridge = net.bridge(n);
  const node = net.node(bridge.node);
  const cookie = await readCookie(node.cookieFile);
  if (!cookie) throw new Error(`cannot read node ${bridge.node}'s cookie ${node.cookieFile}`);
  const current = readEnvFile(bridge.envFile);
  const address = current.OPOI_ADDRESSES || (await withNode(net, bridge.node, (rpc) => rpc.call('getnewaddress', ['bridge-opoi'])));
  mkdirSync(dirname(bridge.envFile), { recursive: true, mode: 0o700 });
  writeEnvFile(bridge.envFile, {
    UPSTREAM_POOL_ADDR: `${BRIDGE_TO_POOL_HOST}:${net.port('poolStratum')}`,
    CSD_RPC_URL: node.rpcUrl,
    CSD_RPC_USER: cookie.user,
    CSD_RPC_PASS: cookie.password,
    CSD_WS_URL: `ws://127.0.0.1:${net.port(bridge.node === 1 ? 'node1Ws' : 'node2Ws')}`,
    OPOI_ADDRESSES: address,
    // What its miner holds: the bridge routes that manifest's VERIFIABLE work and audits to it.
    OPOI_SERVES: manifestId,
    OPOI_REQUESTER_API_KEY: current.OPOI_REQUESTER_API_KEY || newApiKey(),
    LISTEN_ADDR: `127.0.0.1:${bridge.stratumPort}`,
    API_LISTEN_ADDR: bridge.apiUrl.replace('http://', ''),
    DATA_DIR: bridge.dataDir,
    // Regtest blocks come every few seconds; the WebSocket wakes the bridge sooner still.
    POLL_INTERVAL_SECS: '1',
  });
}

/** Waits until `check` holds on node `n` (node 2 learns node 1's blocks and transactions by relay). */
async function untilOn<T>(net: Network, n: 1 | 2, what: string, check: (rpc: RpcClient) => Promise<T | undefined>): Promise<T> {
  return withNode(net, n, async (rpc) => {
    for (let i = 0; i < 600; i++) {
      const v = await check(rpc);
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`node ${n} never saw ${what}`);
  });
}

/**
 * Bridge `n`'s stake, serving the model's manifest, made here from its node's wallet (the bridge
 * finds it when it starts): a coin of the address is used, else node 1's wallet funds the address
 * once; the funding and the STAKE are mined by node 1.
 */
export async function stakeBridge(net: Network, n: BridgeNumber, manifestId: string, progress: Progress): Promise<void> {
  const bridge = net.bridge(n);
  const address = readEnvFile(bridge.envFile).OPOI_ADDRESSES;
  const mine = () => withNode(net, 1, async (rpc) => rpc.call('generatetoaddress', [1, await rpc.call('getnewaddress', ['network'])]));
  const stake = await withNode(net, bridge.node, (rpc) => readStake(rpc, address));
  if (stake.kind === 'stake' && stake.stake.status === 'FORFEITED') {
    // The collateral is the request's payout to spend; once it is, the stake is gone and is made again below.
    const { forfeited_by } = await withNode(net, bridge.node, (rpc) => rpc.call('getopoistake', [address]));
    progress.step(`bridge ${n}'s stake was forfeited by request ${forfeited_by}: claiming its payout, then staking again`);
    await withNode(net, 1, (rpc) => rpc.call('claimopoipayout', [forfeited_by!]));
    await mine();
    await untilOn(net, bridge.node, 'the forfeit paid out', async (rpc) => ((await readStake(rpc, address)).kind === 'none' ? true : undefined));
  } else if (stake.kind === 'stake' && stake.stake.status !== 'UNSTAKED') {
    progress.step(`bridge ${n}'s address ${address} is staked (${stake.stake.status})`);
    return;
  }
  const coinOf = (rpc: RpcClient) => spendableUtxos(rpc, 2).then((coins) => coins.find((c) => c.address === address));
  let coin = await withNode(net, bridge.node, coinOf);
  if (!coin) {
    progress.step(`funding bridge ${n}'s address ${address} with ${STAKE_FUNDS} coins`);
    const txid = await withNode(net, 1, (rpc) => rpc.call('sendtoaddress', [address, STAKE_FUNDS]));
    await mine();
    coin = await untilOn(net, bridge.node, `the funding ${txid}`, coinOf);
  }
  progress.step(`staking bridge ${n}'s address ${address} with ${coin.txid}:${coin.vout}, serving ${manifestId}`);
  const { txid } = await withNode(net, bridge.node, (rpc) => rpc.call('stakeopoi', [address, coin.txid, coin.vout, manifestId, '', [manifestId]]));
  await untilOn(net, 1, `the STAKE ${txid}`, async (rpc) =>
    ((await rpc.call('getrawmempool', [false])) as readonly string[]).includes(txid) ? true : undefined,
  );
  await mine();
  await untilOn(net, bridge.node, `the STAKE ${txid} mined`, async (rpc) => ((await readStake(rpc, address)).kind === 'stake' ? true : undefined));
}
