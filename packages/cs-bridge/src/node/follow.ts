/**
 * Follows the node's WebSocket (`new-blocks` and `opoi`, docs/notifications.md) so that the engine
 * acts on a block or an OPoI step at once; the engine's poll stays the fallback, so a node without
 * -wsport, or a dropped connection, only makes the bridge slower. Reconnects with backoff.
 */
import type { Logger } from 'pino';
import { WebSocket } from 'ws';

export class NodeFollower {
  private ws: WebSocket | null = null;
  private retryMs = 1000;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  connected = false;

  constructor(
    private readonly url: string,
    private readonly onEvent: () => void,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.on('open', () => {
      this.connected = true;
      this.retryMs = 1000;
      ws.send(JSON.stringify({ action: 'subscribe', channel: 'new-blocks' }));
      ws.send(JSON.stringify({ action: 'subscribe', channel: 'opoi' }));
      this.log.info({ url: this.url }, 'following the node over WebSocket');
      this.onEvent();
    });
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.includes('"type":"subscribed"') || text.includes('"type": "subscribed"')) return;
      this.onEvent();
    });
    ws.on('error', (e) => this.log.debug({ err: e.message }, 'node WebSocket error'));
    ws.on('close', () => {
      if (this.connected) this.log.warn({ url: this.url }, 'node WebSocket closed; polling until it is back');
      this.connected = false;
      this.ws = null;
      if (this.stopped) return;
      this.timer = setTimeout(() => this.start(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 30_000);
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.terminate();
  }
}
