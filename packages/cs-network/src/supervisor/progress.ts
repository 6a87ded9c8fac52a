/** What a setup step gets: a line to tell the operator what it does, and the stop signal to honour. */
export interface Progress {
  step(text: string): void;
  /** Aborted when the network stops (a signal, or a program died): long steps end early. */
  readonly signal: AbortSignal;
}

/** Polls `check` every `everyMs` until it is true; throws the abort reason if the network stops first. */
export async function until(check: () => Promise<boolean>, signal: AbortSignal, what: string, timeoutMs = 300_000, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal.throwIfAborted();
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
