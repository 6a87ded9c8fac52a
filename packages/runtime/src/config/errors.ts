/** Where a configuration problem was found; cs-cli prefixes its messages the way bitcoin-cli does. */
export type ConfigErrorSource = 'command line' | 'config file' | 'chain' | 'data directory';

/**
 * A configuration problem the operator has to fix. The message names the option in Bitcoin Core's
 * words ("Invalid parameter -foo", "Invalid value for -rpcport: 'abc' (...)") so that it can be
 * printed as it is.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    message: string,
    readonly source: ConfigErrorSource,
  ) {
    super(message);
  }
}
