/**
 * rpcallowip: which client addresses may talk to the RPC port at all (others get 403 before
 * authentication is even looked at). The matching is @cs/runtime/config's AllowList (cs-pool's
 * -whitelist uses it too); Core always admits loopback besides.
 */
import { AllowList as SubnetList } from '@cs/runtime/config';

export { ipv6Bytes } from '@cs/runtime/config';

/** Core always admits loopback, whatever rpcallowip adds. */
export const LOOPBACK_SUBNETS = ['127.0.0.0/8', '::1'] as const;

export class AllowList extends SubnetList {
  /** The list Core builds: loopback plus every rpcallowip entry. */
  static forRpc(rpcallowip: readonly string[]): AllowList {
    return new AllowList([...LOOPBACK_SUBNETS, ...rpcallowip]);
  }
}
