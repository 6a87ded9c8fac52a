/**
 * Follows the node's WebSocket (`new-blocks` and `opoi`, docs/notifications.md) so that the engine
 * acts on a block or an OPoI step at once; the engine's poll stays the fallback, so a node without
 * -wsport, or a dropped connection, only makes the bridge slower. @cs/client's NodeSocket decodes
 * the pushes and reconnects with backoff.
 */
import { NodeSocket } from '@cs/client';
import type { Logger } from 'pino';

export class NodeFollower {
  private readonly socket: NodeSocket;

  constructor(url: string, onEvent: () => void, log: Logger) {
    this.socket = new NodeSocket({ url, subscriptions: [{ channel: 'new-blocks' }, { channel: 'opoi' }] });
    this.socket.on('open', () => {
      log.info({ url }, 'following the node over WebSocket');
      onEvent();
    });
    this.socket.on('push', () => onEvent());
    this.socket.on('problem', (e) => log.debug({ err: e.message }, 'node WebSocket problem'));
    this.socket.on('refused', (e) => log.warn({ code: e.code, err: e.message }, 'the node refused a WebSocket subscription'));
    this.socket.on('close', () => log.warn({ url }, 'node WebSocket closed; polling until it is back'));
  }

  start(): void {
    this.socket.start();
  }

  stop(): void {
    this.socket.stop();
  }
}
