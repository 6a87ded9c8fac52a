/**
 * `cs-network status`: which programs run (from the pid file, checked against /proc), their
 * endpoints, both nodes' heights and peers, the pool's miners and blocks, the bridge's stake and
 * miners. Each figure is asked of the running program; one that does not answer says so.
 */
import type { Invocation } from '../config/options.ts';
import { Network } from '../network/network.ts';
import { PROGRAMS, bridgeHealth } from '../programs/programs.ts';
import { isRunning, readPidFile } from '../supervisor/pid-file.ts';

async function nodeLine(net: Network, n: 1 | 2): Promise<string> {
  const rpc = net.rpc(n, 5_000);
  try {
    const [height, peers] = await Promise.all([rpc.call<number>('getblockcount'), rpc.call<number>('getconnectioncount')]);
    return `node ${n}: height ${height}, ${peers} peer${peers === 1 ? '' : 's'}`;
  } catch (e) {
    return `node ${n}: not answering (${(e as Error).message})`;
  } finally {
    rpc.close();
  }
}

async function poolLine(net: Network): Promise<string> {
  try {
    const stats = (await (await fetch(`${net.poolApiUrl}/api/pool/stats`)).json()) as Record<string, unknown>;
    const blocks = (await (await fetch(`${net.poolApiUrl}/api/blocks`)).json()) as unknown[];
    return `pool: ${JSON.stringify(stats)}; ${blocks.length} blocks found`;
  } catch (e) {
    return `pool: not answering (${(e as Error).message})`;
  }
}

async function bridgeLine(net: Network): Promise<string> {
  const h = await bridgeHealth(net);
  if (!h) return 'bridge: not answering';
  return `bridge: ${h.status}, stake ${h.stake}, node height ${h.node_height}, ${h.miners} miners (${h.opoi_miners} serving OPoI)`;
}

export async function status(inv: Invocation): Promise<number> {
  const state = Network.readState(inv.datadir);
  if (!state) {
    process.stderr.write(`cs-network: no network in ${inv.datadir}\n`);
    return 1;
  }
  const net = new Network(inv.datadir, state);
  const pids = readPidFile(net.pidFile);
  const supervisorRuns = pids !== null && isRunning(pids.supervisor);
  process.stdout.write(`network ${net.dir}: ${supervisorRuns ? `cs-network runs (pid ${pids.supervisor.pid})` : 'cs-network is not running'}\n`);
  for (const program of PROGRAMS) {
    const p = pids?.programs.find((x) => x.name === program.name);
    process.stdout.write(`  ${program.title.padEnd(14)} ${p && isRunning(p) ? `running, pid ${p.pid}` : 'stopped'}\n`);
  }
  if (!supervisorRuns) return 3;
  for (const line of await Promise.all([nodeLine(net, 1), nodeLine(net, 2), poolLine(net), bridgeLine(net)])) process.stdout.write(`${line}\n`);
  for (const program of PROGRAMS) for (const e of program.endpoints(net)) process.stdout.write(`  ${e.label.padEnd(20)} ${e.value}\n`);
  return 0;
}
