/** An event map: event name → the tuple of arguments its listeners get. */
export type EventMap = { [event: string]: readonly unknown[] };

type Listener<M extends EventMap, K extends keyof M> = (...args: M[K]) => void;

/**
 * A synchronous, typed event emitter for the node's subsystems (chain, mempool). Unlike
 * node:events, a listener that throws is reported to `onError` and does not stop the others:
 * the change being announced has already been committed, so announcing must go on.
 */
export class TypedEvents<M extends EventMap> {
  private readonly listeners = new Map<keyof M, Listener<M, keyof M>[]>();

  constructor(private readonly onError: (event: string, err: unknown) => void) {}

  on<K extends keyof M>(event: K, listener: Listener<M, K>): void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as Listener<M, keyof M>);
    this.listeners.set(event, list);
  }

  off<K extends keyof M>(event: K, listener: Listener<M, K>): void {
    const list = this.listeners.get(event);
    const i = list ? list.indexOf(listener as Listener<M, keyof M>) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  emit<K extends keyof M>(event: K, ...args: M[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as Listener<M, K>)(...args);
      } catch (err) {
        this.onError(String(event), err);
      }
    }
  }
}
