import { splitHostPort } from '@cs/runtime/config';
import type { OpoiContentStore } from '../opoi/content.ts';
import type { ChainContext } from '../rpc/context.ts';
import { AllowList } from '../rpc/allowip.ts';
import { WsNotifier } from './notifier.ts';
import { WsServer } from './server.ts';

/** What the WebSocket service may use of a running node: the chain's context and the published OPoI content it announces. */
export interface WebSocketContext extends ChainContext {
  readonly opoiContent: OpoiContentStore;
}

/**
 * WebSocket notifications of a running node (-wsport): the server and the notifier that feeds it
 * from the chain and mempool. Started once the chain is loaded, closed before it is.
 */
export class WebSocketService {
  private constructor(
    private readonly server: WsServer,
    private readonly notifier: WsNotifier,
  ) {}

  /**
   * Listens where the RPC server does: loopback only unless -rpcallowip is set, then on each
   * -rpcbind address (its port, if any, is the RPC port's; WebSocket uses -wsport).
   */
  static async start(ctx: WebSocketContext, port: number): Promise<WebSocketService> {
    const o = ctx.config.options;
    const server = new WsServer({
      net: ctx.params.address,
      allowList: AllowList.forRpc(o.rpcallowip),
      corsDomain: o.rpccorsdomain ?? undefined,
      rateLimit: o.wsratelimit,
      logger: ctx.log,
    });
    const hosts = o.rpcallowip.length > 0 ? o.rpcbind.map((bind) => splitHostPort(bind)?.host ?? bind) : ['127.0.0.1', '::1'];
    let bound = 0;
    for (const host of hosts) {
      try {
        await server.listen(port, host);
        bound++;
      } catch (err) {
        // ::1 is missing on hosts without IPv6; the IPv4 loopback is enough.
        if (host === '::1' && (err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') continue;
        await server.close();
        throw new Error(`Unable to bind WebSocket server to ${host}:${port}: ${(err as Error).message}`);
      }
    }
    if (bound === 0) {
      await server.close();
      throw new Error('Unable to bind any endpoint for the WebSocket server');
    }
    return new WebSocketService(server, new WsNotifier(server, ctx.chain, ctx.mempool, ctx.opoiContent));
  }

  async close(): Promise<void> {
    this.notifier.close();
    await this.server.close();
  }
}
