/**
 * `cs-network down [-purge]`: stops a network that runs in another terminal. The supervisor gets
 * SIGTERM and stops its programs in order, as on Ctrl-C; programs left behind by a supervisor that
 * was killed are sent SIGTERM directly, last started first. -purge then deletes the data
 * directory, only once nothing of the network runs and no `up` holds its lock.
 */
import { existsSync, rmSync } from 'node:fs';
import { lockDataDir } from '@cs/runtime/datadir';
import type { Invocation } from '../config/options.ts';
import { Network } from '../network/network.ts';
import { isRunning, readPidFile, removePidFile, type RecordedProcess } from '../supervisor/pid-file.ts';

/** The supervisor waits up to 30 s per program before SIGKILL; five programs and some margin. */
const WAIT_MS = 240_000;

async function gone(processes: readonly RecordedProcess[]): Promise<boolean> {
  const deadline = Date.now() + WAIT_MS;
  while (processes.some(isRunning)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}

export async function down(inv: Invocation): Promise<number> {
  if (!existsSync(Network.stateFile(inv.datadir))) {
    process.stderr.write(`cs-network: no network in ${inv.datadir}\n`);
    return 1;
  }
  const pidFile = new Network(inv.datadir, { basePort: 0, modelPath: null, minerAddresses: [] }).pidFile;
  const pids = readPidFile(pidFile);
  if (pids) {
    const all = [pids.supervisor, ...pids.programs];
    if (isRunning(pids.supervisor)) {
      process.stdout.write(`cs-network: stopping the network (cs-network pid ${pids.supervisor.pid})\n`);
      process.kill(pids.supervisor.pid, 'SIGTERM');
    } else {
      for (const p of [...pids.programs].reverse().filter(isRunning)) {
        process.stdout.write(`cs-network: stopping ${p.name} (pid ${p.pid}), left by a cs-network that did not stop it\n`);
        process.kill(p.pid, 'SIGTERM');
        await gone([p]);
      }
    }
    if (!(await gone(all))) {
      process.stderr.write(
        `cs-network: still running after ${WAIT_MS / 1000} s: ${all
          .filter(isRunning)
          .map((p) => `${p.name} (pid ${p.pid})`)
          .join(', ')}\n`,
      );
      return 1;
    }
    removePidFile(pidFile);
  }
  process.stdout.write('cs-network: the network is stopped\n');
  if (!inv.values.purge) return 0;
  // A network still coming up may not have written its pid file yet: its lock says so.
  const lock = await lockDataDir(inv.datadir, 'cs-network');
  await lock.release();
  rmSync(inv.datadir, { recursive: true, force: true });
  process.stdout.write(`cs-network: deleted ${inv.datadir}\n`);
  return 0;
}
