import { join, resolve } from 'node:path';
import { NETWORKS, type ChainParams } from '@cs/consensus';
import type { Env } from '@cs/runtime/datadir';
import { CLI_OPTIONS } from './cli-options.ts';
import { ConfigError, loadSettings, type ValuesOf } from '@cs/runtime/config';
import { NODE_OPTIONS } from './options.ts';

export type NodeOptions = ValuesOf<typeof NODE_OPTIONS>;
export type NodeOptionName = keyof NodeOptions & string;
export type LogLevel = NodeOptions['loglevel'];

export interface NodePaths {
  /** Holds cs.conf and, for mainnet, the chain data. */
  readonly dataDir: string;
  /** The selected network's data: the lock, debug.log, .cookie, databases. */
  readonly networkDir: string;
  /** The configuration file looked for (it may not exist), or null with -noconf. */
  readonly confFile: string | null;
  readonly debugLog: string;
  /** Where the mempool is saved at shutdown (and by savemempool) and read at startup. */
  readonly mempoolFile: string;
  /** Where fee estimates are saved (hourly and at shutdown) and read at startup. */
  readonly feeEstimatesFile: string;
  /** Where the RPC cookie goes when csd uses one; null with -norpccookiefile. */
  readonly cookieFile: string | null;
}

/** Everything csd was told, with defaults applied; frozen. */
export interface NodeConfig {
  readonly network: ChainParams;
  readonly paths: NodePaths;
  readonly options: NodeOptions;
  /** Whether the operator set the option, as opposed to its default (Core's IsArgSet). */
  isSet(name: NodeOptionName): boolean;
  /** Non-fatal findings to log once the logger is up. */
  readonly warnings: readonly string[];
}

const CLI_KEYS: ReadonlySet<string> = new Set(Object.keys(CLI_OPTIONS));

/**
 * Reads csd's command line (without the program name, e.g. process.argv.slice(2)) and cs.conf.
 * Throws ConfigError, whose message is ready to print after "Error: ". Creates nothing on disk:
 * see datadir/prepare.ts for that.
 */
export function loadConfig(argv: readonly string[], env: Env = process.env): NodeConfig {
  // cs.conf is shared with cs-cli, so its keys (rpcconnect, rpcwait, ...) are not mistakes here.
  const settings = loadSettings(NODE_OPTIONS, argv, env, { tolerated: (key) => CLI_KEYS.has(key), networks: NETWORKS });
  const [unexpected] = settings.positional;
  if (unexpected !== undefined) {
    throw new ConfigError(`Command line contains unexpected token '${unexpected}', see csd -help for a list of options.`, 'command line');
  }
  const { networkDir, values } = settings;
  return Object.freeze({
    network: settings.network,
    paths: Object.freeze({
      dataDir: settings.dataDir,
      networkDir,
      confFile: settings.confFile,
      debugLog: join(networkDir, 'debug.log'),
      mempoolFile: join(networkDir, 'mempool.dat'),
      feeEstimatesFile: join(networkDir, 'fee_estimates.dat'),
      cookieFile: values.rpccookiefile === null ? null : resolve(networkDir, values.rpccookiefile),
    }),
    options: values,
    isSet: settings.isSet,
    warnings: Object.freeze([...settings.warnings]),
  });
}
