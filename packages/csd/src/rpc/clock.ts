/**
 * The node's notion of "now" in Unix seconds. On regtest `setmocktime` (or -mocktime) pins it,
 * as in Core, so tests can move time for locktimes, expiry and the future-block limit.
 */
export class NodeClock {
  #mock: number;

  constructor(mock = 0) {
    this.#mock = mock;
  }

  /** Seconds; the mock time when one is set. */
  now = (): number => (this.#mock > 0 ? this.#mock : Math.floor(Date.now() / 1000));

  /** 0 returns to the system clock. */
  setMock(seconds: number): void {
    this.#mock = seconds;
  }

  get mocked(): boolean {
    return this.#mock > 0;
  }
}
