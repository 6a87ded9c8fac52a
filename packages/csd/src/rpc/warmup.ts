/**
 * The node's start-up state as RPC and REST report it (Core's SetRPCWarmupStatus /
 * SetRPCWarmupFinished). While a status is set, calls answer RPC_IN_WARMUP with it as message.
 */
export class Warmup {
  #status: string | null;

  /** `status` null means ready at once (tools and tests); the node starts with e.g. "Loading block index…". */
  constructor(status: string | null = null) {
    this.#status = status;
  }

  /** The current start-up step, or null once the node is ready. */
  get status(): string | null {
    return this.#status;
  }

  set(status: string): void {
    this.#status = status;
  }

  finish(): void {
    this.#status = null;
  }
}
