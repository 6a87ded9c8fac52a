// A WebSocket client for tests: connects, sends requests, and hands over what arrives in order.
import WebSocket, { type ClientOptions } from 'ws';
import type { JsonObject } from '../format/json-value.ts';

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

export class WsTestClient {
  readonly #received: JsonObject[] = [];
  #wake: (() => void) | null = null;
  readonly closed: Promise<CloseInfo>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.#received.push(JSON.parse(String(data)) as JsonObject);
      this.#wake?.();
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(() => this.#wake?.());
  }

  static connect(url: string, options: ClientOptions = {}): Promise<WsTestClient> {
    const socket = new WebSocket(url, options);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsTestClient(socket)));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
  }

  /** Sends an object as JSON, or a string as it is. */
  send(message: JsonObject | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message; fails after `timeoutMs` or when the connection closes first. */
  async next(timeoutMs = 10_000): Promise<JsonObject> {
    const deadline = Date.now() + timeoutMs;
    while (this.#received.length === 0) {
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error('connection closed while waiting for a message');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
    return this.#received.shift()!;
  }

  /** Sends a request and returns the answer (the next message, so only when no pushes are due). */
  async request(message: JsonObject | string): Promise<JsonObject> {
    this.send(message);
    return this.next();
  }

  /** Messages arrived and not yet taken. */
  get pending(): number {
    return this.#received.length;
  }

  close(): Promise<CloseInfo> {
    this.socket.close();
    return this.closed;
  }
}
