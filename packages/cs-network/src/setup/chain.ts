/**
 * The chain steps before the bridge can work: blocks to coinbase maturity, the bridge's
 * environment file (node 1's cookie, the ports, the API key made once), and a coin of the bridge's
 * OPoI address for it to stake. Each step looks at what is already there first, so a restarted
 * network neither mines again, nor funds again, nor stakes again.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { REGTEST } from '@cs/consensus';
import { readEnvFile, readStake, spendableUtxos, newApiKey, writeEnvFile } from '@cs/bridge/setup';
import { readCookie } from '@cs/runtime/datadir';
import type { RpcClient } from '@cs/client';
import type { Network } from '../network/network.ts';
import type { Progress } from '../supervisor/progress.ts';

/** One block past maturity: the first coinbase is spendable. */
const MATURE_HEIGHT = REGTEST.coinbaseMaturity + 1;
/** Sent to the bridge's address: the stake (1 coin on regtest) and the fees of its transactions. */
const STAKE_FUNDS = 5;

async function withNode1<T>(net: Network, f: (rpc: RpcClient) => Promise<T>): Promise<T> {
  const rpc = net.rpc(1, 120_000);
  try {
    return await f(rpc);
  } finally {
    rpc.close();
  }
}

/** Node 1's own regtest mining (generatetoaddress, to its wallet) up to maturity, with the height as it goes. */
export function mineToMaturity(net: Network, progress: Progress): Promise<void> {
  return withNode1(net, async (rpc) => {
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

/** The bridge's environment file, rewritten at every start: node 1's cookie changes with each of its starts. */
export async function writeBridgeEnv(net: Network): Promise<void> {
  const cookie = await readCookie(net.node(1).cookieFile);
  if (!cookie) throw new Error(`cannot read node 1's cookie ${net.node(1).cookieFile}`);
  const current = readEnvFile(net.bridgeEnvFile);
  const address = current.OPOI_ADDRESSES || (await withNode1(net, (rpc) => rpc.call('getnewaddress', ['bridge-opoi'])));
  mkdirSync(dirname(net.bridgeEnvFile), { recursive: true, mode: 0o700 });
  writeEnvFile(net.bridgeEnvFile, {
    UPSTREAM_POOL_ADDR: `${BRIDGE_TO_POOL_HOST}:${net.port('poolStratum')}`,
    CSD_RPC_URL: net.node(1).rpcUrl,
    CSD_RPC_USER: cookie.user,
    CSD_RPC_PASS: cookie.password,
    CSD_WS_URL: `ws://127.0.0.1:${net.port('node1Ws')}`,
    OPOI_ADDRESSES: address,
    OPOI_REQUESTER_API_KEY: current.OPOI_REQUESTER_API_KEY || newApiKey(),
    LISTEN_ADDR: `127.0.0.1:${net.port('bridgeStratum')}`,
    API_LISTEN_ADDR: `127.0.0.1:${net.port('bridgeApi')}`,
    DATA_DIR: net.path('bridge', 'data'),
    // Regtest blocks come every few seconds; the WebSocket wakes the bridge sooner still.
    POLL_INTERVAL_SECS: '1',
  });
}

/**
 * Makes sure the bridge has a stake or a coin to stake (OPOI_STAKE_UTXO, which the bridge stakes
 * when it starts): a coin of the address already there is used, else the address is funded once
 * from node 1's wallet and the funding mined.
 */
export function fundBridgeStake(net: Network, progress: Progress): Promise<void> {
  return withNode1(net, async (rpc) => {
    const env = readEnvFile(net.bridgeEnvFile);
    const address = env.OPOI_ADDRESSES;
    const stake = await readStake(rpc, address);
    if (stake.kind === 'stake' && stake.stake.status !== 'UNSTAKED') {
      progress.step(`the bridge's address ${address} is staked (${stake.stake.status})`);
      return;
    }
    if (env.OPOI_STAKE_UTXO && (await coinUnspent(rpc, env.OPOI_STAKE_UTXO))) return;
    let coin = (await spendableUtxos(rpc, 2)).find((c) => c.address === address);
    if (!coin) {
      const unconfirmed = await rpc.call('listunspent', [0, 0, [address]]);
      if (unconfirmed.length === 0) {
        progress.step(`funding the bridge's address ${address} with ${STAKE_FUNDS} coins`);
        await rpc.call('sendtoaddress', [address, STAKE_FUNDS]);
      }
      await rpc.call('generatetoaddress', [1, await rpc.call('getnewaddress', ['network'])]);
      coin = (await spendableUtxos(rpc, 2)).find((c) => c.address === address);
      if (!coin) throw new Error(`the funding of ${address} did not confirm`);
    }
    progress.step(`the bridge stakes ${coin.txid}:${coin.vout} when it starts`);
    writeEnvFile(net.bridgeEnvFile, { OPOI_STAKE_UTXO: `${coin.txid}:${coin.vout}` });
  });
}

async function coinUnspent(rpc: RpcClient, utxo: string): Promise<boolean> {
  const [txid, vout] = utxo.split(':');
  return (await rpc.call('gettxout', [txid, Number(vout), true])) !== null;
}
