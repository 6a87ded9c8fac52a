/**
 * csd's method table without a running node, for the API description generator
 * (scripts/gen-api.ts): the same registration code the node runs, given the network's real
 * configuration and parameters (help texts quote them) and, for the chain, mempool, wallet and
 * the rest, stand-ins that fail if anything is called on them. Registration only stores the
 * handlers, so nothing is: a registration that starts to need a live node fails here loudly.
 */
import { loadConfig } from '../config/node-config.ts';
import { registerControlMethods } from '../rpc/methods/control.ts';
import { RpcRegistry, type RpcMethodDescription } from '../rpc/registry.ts';
import type { NodeContext } from './context.ts';
import { registerNodeMethods } from './methods.ts';

/** A live part of the node: reading properties is fine (registration keeps references), calling anything is a mistake. */
function absent(path: string): unknown {
  return new Proxy(() => {}, {
    get: (_target, key) => (typeof key === 'symbol' ? undefined : absent(`${path}.${key}`)),
    apply: () => {
      throw new Error(`describing the RPC methods called ${path}(): registration must not need a running node`);
    },
  });
}

/** Every method csd serves with its wallet and peer-to-peer network on (the default), in name order. */
export function describeNodeMethods(): RpcMethodDescription[] {
  // Help texts are the same on every network; regtest's configuration reads no file from the
  // default data directory since -datadir names one that does not exist.
  const config = loadConfig(['-regtest', '-datadir=/nonexistent/cs-describe'], {});
  const registry = new RpcRegistry();
  registerControlMethods(registry, {
    shutdown: () => {
      throw new Error('describing the RPC methods must not stop anything');
    },
    startedAt: 0,
  });
  const ctx = new Proxy({ config, params: config.network } as Partial<NodeContext>, {
    get: (known, key) => (typeof key === 'symbol' || key in known ? known[key as keyof NodeContext] : absent(`ctx.${key}`)),
  });
  registerNodeMethods(registry, ctx as NodeContext);
  return registry.describe();
}
