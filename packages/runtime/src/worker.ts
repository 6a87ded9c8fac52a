/**
 * Worker threads and child processes whose entry module sits beside the code that starts them.
 * Built programs run the compiled entry in dist/. Code running from its TypeScript sources (the
 * tests, under tsx) gets the source entry through source-worker.js, which registers tsx first:
 * Node does not hand a thread's module hooks on to the workers it starts, and a child process
 * gets only the command-line flags it is given.
 */
import { type ChildProcess, type ForkOptions, fork } from 'node:child_process';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const SOURCE_BOOTSTRAP = new URL('../src/source-worker.js', import.meta.url);

/** Starts `entry` (a module beside `callerUrl`, named without its extension) in a new thread. */
export function startWorker(callerUrl: string, entry: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${entry}.js`, callerUrl), options);
  const source = new URL(`./${entry}.ts`, callerUrl).href;
  return new Worker(SOURCE_BOOTSTRAP, { ...options, argv: [source, ...(options.argv ?? [])] });
}

/** The condition under which the workspace's packages resolve to their TypeScript sources. */
const SOURCE_CONDITION = '--conditions=@cs/source';

/** Starts `entry` (a module beside `callerUrl`, named without its extension) in a child process with an IPC channel. */
export function startProcess(callerUrl: string, entry: string, args: readonly string[] = [], options: ForkOptions = {}): ChildProcess {
  if (!callerUrl.endsWith('.ts')) return fork(new URL(`./${entry}.js`, callerUrl), [...args], options);
  const execArgv = options.execArgv ?? process.execArgv;
  const source = new URL(`./${entry}.ts`, callerUrl).href;
  return fork(SOURCE_BOOTSTRAP, [source, ...args], {
    ...options,
    execArgv: execArgv.includes(SOURCE_CONDITION) ? execArgv : [...execArgv, SOURCE_CONDITION],
  });
}
