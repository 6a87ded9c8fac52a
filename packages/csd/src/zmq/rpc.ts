/** The Zmq category: getzmqnotifications, as Core's src/zmq/zmqrpc.cpp. */
import type { ChainContext } from '../rpc/context.ts';
import type { RpcRegistry } from '../rpc/registry.ts';
import { zmqNotifications } from './notifications.ts';

export function registerZmqMethods(registry: RpcRegistry, ctx: ChainContext): void {
  // The node refuses to start when an endpoint cannot be bound, so the configured notifiers are the active ones.
  const active = zmqNotifications(ctx.config.options).map(({ topic, address, hwm }) => ({ type: `pub${topic}`, address, hwm }));
  registry.register({
    name: 'getzmqnotifications',
    category: 'Zmq',
    description: 'Returns information about the active ZeroMQ notifications.',
    params: [],
    result: [
      '[                         (json array)',
      '  {                       (json object)',
      '    "type" : "str",       (string) Type of notification',
      '    "address" : "str",    (string) Address of the publisher',
      '    "hwm" : n             (numeric) Outbound message high water mark',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => active,
  });
}
