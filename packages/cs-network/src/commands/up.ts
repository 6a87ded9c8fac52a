/**
 * `cs-network up`: takes the data directory's lock, starts the programs in order (each one's setup
 * steps first, then the process, then waiting until it serves), waits until each works with the
 * others (the bridge's stake ACTIVE, which the miners' blocks confirm), prints the endpoints, and runs until SIGINT or
 * SIGTERM, or until a program dies: then it stops every other program, last started first.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { lockDataDir } from '@cs/runtime/datadir';
import type { Invocation } from '../config/options.ts';
import { DEFAULT_BASE_PORT } from '../config/options.ts';
import { Network } from '../network/network.ts';
import { PROGRAMS } from '../programs/programs.ts';
import { type Progress, until } from '../supervisor/progress.ts';
import { ProgramDied, Supervisor } from '../supervisor/supervisor.ts';

/** Stopped by a signal: not an error. */
class Stopped extends Error {}

function say(line: string): void {
  process.stdout.write(`cs-network: ${line}\n`);
}

/** The saved network with this run's options applied (and saved), or a new one. */
function openNetwork(inv: Invocation): { net: Network; resumed: boolean } {
  const saved = Network.readState(inv.datadir);
  const net = new Network(inv.datadir, saved ?? { basePort: DEFAULT_BASE_PORT, modelPath: null, minerAddresses: [] });
  net.save({
    ...net.state,
    basePort: inv.values.baseport ?? net.state.basePort,
    // Absolute: a later `up` may run from another directory.
    modelPath: inv.values['model-path'] !== null ? resolve(inv.values['model-path']) : net.state.modelPath,
  });
  return { net, resumed: saved !== null };
}

export async function up(inv: Invocation): Promise<number> {
  mkdirSync(inv.datadir, { recursive: true });
  const lock = await lockDataDir(inv.datadir, 'cs-network');
  const { net, resumed } = openNetwork(inv);
  net.corruptAnswers = inv.values.corruptanswers;
  say(`${resumed ? 'resuming the network' : 'creating a network'} in ${net.dir} (ports ${net.state.basePort} to ${net.state.basePort + 40})`);

  const stop = new AbortController();
  const supervisor = new Supervisor(net, (death) => stop.abort(death));
  const onSignal = (signal: NodeJS.Signals) => stop.abort(new Stopped(signal));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress: Progress = { step: say, signal: stop.signal };

  let status = 0;
  try {
    for (const program of PROGRAMS) {
      await program.prepare?.(net, progress);
      stop.signal.throwIfAborted();
      say(`starting ${program.title}`);
      supervisor.start(program);
      await until(() => program.ready(net), stop.signal, `${program.title} to answer`);
    }
    for (const program of PROGRAMS.filter((p) => p.working)) {
      say(`waiting for ${program.title}: ${program.working!.what}`);
      await until(() => program.working!.check(net), stop.signal, `${program.title}: ${program.working!.what}`);
    }
    // One write: whoever waits for "the network is up" (a script, the tests) finds the endpoints with it.
    const endpoints = PROGRAMS.flatMap((program) => program.endpoints(net)).map((e) => `  ${e.label.padEnd(20)} ${e.value}\n`);
    process.stdout.write(`cs-network: the network is up. Stop it with Ctrl-C here, or cs-network down -datadir=${net.dir}\n${endpoints.join('')}`);
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    stop.signal.throwIfAborted();
  } catch (e) {
    const reason = stop.signal.aborted ? stop.signal.reason : e;
    if (reason instanceof ProgramDied) {
      process.stderr.write(`cs-network: ${reason.message}; stopping the network\n${reason.tail}\n`);
      status = 1;
    } else if (!(reason instanceof Stopped)) {
      process.stderr.write(`cs-network: ${(reason as Error).message}; stopping the network\n`);
      status = 1;
    }
  }
  await supervisor.stopAll(say);
  await lock.release();
  say('stopped');
  return status;
}
