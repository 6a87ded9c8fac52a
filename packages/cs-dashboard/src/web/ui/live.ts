// The dashboard's /live WebSocket: node pushes (new-blocks, mempool, opoi) tagged with the node's
// index, and feed up/down notices. It reconnects by itself; pages listen while they are shown.

export interface Push {
  readonly type: string;
  readonly node?: number;
  readonly [field: string]: unknown;
}

type Listener = (p: Push) => void;

export class Live {
  private listeners = new Set<Listener>();
  private lasting = new Set<Listener>();
  connected = false;

  constructor() {
    this.connect();
  }

  /** A page's listener: dropped at the next page change. */
  on(fn: Listener): void {
    this.listeners.add(fn);
  }

  /** A listener that stays for the whole session (the status bar). */
  always(fn: Listener): void {
    this.lasting.add(fn);
  }

  clearPage(): void {
    this.listeners.clear();
  }

  private connect(): void {
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/live`);
    ws.onopen = () => {
      this.connected = true;
      this.emit({ type: 'live', up: true });
    };
    ws.onmessage = (ev) => this.emit(JSON.parse(String(ev.data)) as Push);
    ws.onclose = () => {
      this.connected = false;
      this.emit({ type: 'live', up: false });
      setTimeout(() => this.connect(), 2000);
    };
  }

  private emit(p: Push): void {
    for (const fn of [...this.lasting, ...this.listeners]) fn(p);
  }
}
