/**
 * What each network's services listen on and enforce by default, apart from its consensus
 * parameters: light enough for a program that only reads options (cs-cli) to load without the
 * genesis blocks and hashing that params/networks.ts needs.
 */
export type NetworkName = 'main' | 'test' | 'regtest';

export interface NetworkDefaults {
  readonly name: NetworkName;
  readonly p2pPort: number;
  /** The interface document's port, on every network: run two networks at once with -rpcport. */
  readonly rpcPort: number;
  /** Whether relay and mining accept only standard transactions (-acceptnonstdtxn flips it off main). */
  readonly requireStandard: boolean;
}

export const NETWORK_DEFAULTS: Readonly<Record<NetworkName, NetworkDefaults>> = {
  main: { name: 'main', p2pPort: 16125, rpcPort: 16180, requireStandard: true },
  test: { name: 'test', p2pPort: 26125, rpcPort: 16180, requireStandard: false },
  regtest: { name: 'regtest', p2pPort: 36125, rpcPort: 16180, requireStandard: true },
};
