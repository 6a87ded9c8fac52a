/**
 * `cs-network status`: which programs run (from the pid file, checked against /proc), each one's
 * state as it answers it (heights and peers, the pool's miners and blocks, the bridge's stake and
 * miners), and the endpoints. A program that does not answer says so.
 */
import type { Invocation } from '../config/options.ts';
import { Network } from '../network/network.ts';
import { PROGRAMS } from '../programs/programs.ts';
import { isRunning, readPidFile } from '../supervisor/pid-file.ts';

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
  const lines = await Promise.all(
    PROGRAMS.map(async (program) => {
      const p = pids?.programs.find((x) => x.name === program.name);
      if (!p || !isRunning(p)) return 'stopped';
      const detail = program.state ? await program.state(net).catch((e: Error) => `not answering (${e.message})`) : '';
      return `running, pid ${p.pid}${detail ? `: ${detail}` : ''}`;
    }),
  );
  PROGRAMS.forEach((program, i) => process.stdout.write(`  ${program.title.padEnd(14)} ${lines[i]}\n`));
  if (!supervisorRuns) return 3;
  for (const program of PROGRAMS) for (const e of program.endpoints(net)) process.stdout.write(`  ${e.label.padEnd(20)} ${e.value}\n`);
  return 0;
}
