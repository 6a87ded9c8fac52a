import type { AddressIndex } from '../indexes/address-index.ts';
import type { TransactionIndex } from '../indexes/tx-index.ts';
import type { OpoiContext } from '../opoi/context.ts';
import type { NetworkRpcContext } from '../p2p/rpc.ts';
import type { RestContext } from '../rest/endpoint.ts';
import type { WebSocketContext } from '../ws/service.ts';

/**
 * Everything a running node offers its RPC methods and interfaces. Each subsystem declares the
 * part it uses in its own layer (rpc/context.ts, wallet/rpc, opoi, p2p/rpc.ts, rest, ws); the
 * node builds this one object, which is all of them, and hands it to each.
 */
export interface NodeContext extends OpoiContext, NetworkRpcContext, RestContext, WebSocketContext {
  // The chain's methods need only a lookup; the node runs the index, which REST reads further.
  readonly txIndex?: TransactionIndex;
  readonly addressIndex?: AddressIndex;
}
