/**
 * bench/ws.ts's handle on its subscribers (ws-subscribers-worker.ts): waits for each round's last
 * message with a deadline, and when one passes, fails with where it waited, from the worker's
 * own account of its connections plus what the caller knows of the server side.
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@cs/runtime/worker';

export interface SubscriberJob {
  /** WebSocket subscribers to new-blocks, or bare TCP connections for the floor. */
  readonly kind: 'websocket' | 'tcp';
  readonly port: number;
  readonly count: number;
}

export type ToWorker = { readonly type: 'status'; readonly round: number } | { readonly type: 'close' };

export interface Status {
  readonly type: 'status';
  readonly round: number;
  readonly opened: number;
  readonly stages: Record<string, number>;
  readonly behindCount: number;
  readonly behind: readonly { readonly index: number; readonly messages: number; readonly stage: string }[];
}

export type ToMain =
  | { readonly type: 'ready' }
  | { readonly type: 'round'; readonly round: number; readonly lastAt: number; readonly text: string }
  | { readonly type: 'error'; readonly message: string }
  | Status;

export interface Arrival {
  /** Wall-clock time (timeOrigin + now) at which the last connection had the message. */
  readonly lastAt: number;
  /** The message as one connection read it. */
  readonly text: string;
}

export class Subscribers {
  readonly #worker: Worker;
  readonly #arrivals = new Map<number, Arrival>();
  #failure: Error | null = null;
  #ready = false;
  #status: ((s: Status) => void) | null = null;

  private constructor(
    readonly job: SubscriberJob,
    /** What the server side knows, added to a timeout's message. */
    private readonly serverState: () => string,
  ) {
    this.#worker = startWorker(import.meta.url, 'ws-subscribers-worker', { workerData: job });
    this.#worker.on('message', (m: ToMain) => {
      if (m.type === 'ready') this.#ready = true;
      else if (m.type === 'round') this.#arrivals.set(m.round, { lastAt: m.lastAt, text: m.text });
      else if (m.type === 'error') this.#failure ??= new Error(`${job.kind} subscribers: ${m.message}`);
      else this.#status?.(m);
    });
    this.#worker.on('error', (e) => (this.#failure ??= e));
  }

  /** Starts the worker and resolves once its `count` connections are open (subscribed, for WebSocket). */
  static async open(job: SubscriberJob, serverState: () => string, timeoutMs: number): Promise<Subscribers> {
    const s = new Subscribers(job, serverState);
    await s.#until(() => s.#ready, timeoutMs, `opening ${job.count} ${job.kind} connections`, 0);
    return s;
  }

  /** Resolves when every connection has had its `round`-th message (1 = the first after opening). */
  async arrival(round: number, timeoutMs: number): Promise<Arrival> {
    await this.#until(() => this.#arrivals.has(round), timeoutMs, `${this.job.kind} round ${round}`, round);
    const arrival = this.#arrivals.get(round)!;
    this.#arrivals.delete(round);
    return arrival;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.postMessage({ type: 'close' } satisfies ToWorker);
    await exited;
  }

  async #until(done: () => boolean, timeoutMs: number, what: string, round: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (this.#failure) throw this.#failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: still waiting after ${timeoutMs} ms; ${await this.#describe(round)}; ${this.serverState()}`);
      // Whatever the worker says next (the constructor's listener has taken it in first), or the deadline.
      await once(this.#worker, 'message', { signal: AbortSignal.timeout(left) }).catch((e: Error) => {
        if (e.name !== 'AbortError') throw e;
      });
    }
  }

  /** The worker's account of where it waits (it answers unless its thread is stuck). */
  async #describe(round: number): Promise<string> {
    const status = await new Promise<Status | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 2000);
      this.#status = (s) => {
        clearTimeout(timer);
        resolve(s);
      };
      this.#worker.postMessage({ type: 'status', round } satisfies ToWorker);
    });
    this.#status = null;
    if (!status) return 'the subscribers thread did not answer within 2 s';
    const stages = Object.entries(status.stages)
      .map(([stage, n]) => `${n} ${stage}`)
      .join(', ');
    const examples = status.behind.map((b) => `#${b.index} ${b.stage} with ${b.messages} messages`).join(', ');
    return `subscribers: ${status.opened} of ${this.job.count} opened (${stages}), ${status.behindCount} without message ${round}${examples ? ` (${examples})` : ''}`;
  }
}
