/**
 * Worker threads whose entry module sits beside the code that starts them. Built programs run the
 * compiled entry in dist/. Code running from its TypeScript sources (the tests, under tsx) gets
 * the source entry through source-worker.js, which registers tsx first: Node does not hand a
 * thread's module hooks on to the workers it starts.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

const SOURCE_BOOTSTRAP = new URL('../src/source-worker.js', import.meta.url);

/** Starts `entry` (a module beside `callerUrl`, named without its extension) in a new thread. */
export function startWorker(callerUrl: string, entry: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${entry}.js`, callerUrl), options);
  const source = new URL(`./${entry}.ts`, callerUrl).href;
  return new Worker(SOURCE_BOOTSTRAP, { ...options, argv: [source, ...(options.argv ?? [])] });
}
