/**
 * cs-cli's options, as bitcoin-cli's. cs-cli reads the node's cs.conf too: keys it does not know
 * are the node's and are ignored there, and csd in turn tolerates these keys in the shared file.
 */
import { INFO_OPTIONS, NETWORK_NAMES, choice, flag, integer, text, type OptionTable, checkHostPort } from '@cs/runtime/config';

export const CLI_OPTIONS = {
  ...INFO_OPTIONS,
  conf: text({
    category: 'general',
    arg: '<file>',
    description: 'Read the configuration from <file>; relative paths are resolved against the data directory.',
    default: 'cs.conf',
    negated: null,
    placement: 'command line',
  }),
  datadir: text({ category: 'general', arg: '<dir>', description: 'Data directory (default ~/.cs).', default: null, placement: 'top' }),
  chain: choice({
    category: 'chain',
    arg: '<chain>',
    description: 'Network to use: main, test or regtest.',
    values: NETWORK_NAMES,
    default: null,
    placement: 'top',
  }),
  testnet: flag({ category: 'chain', description: 'Use the test network.', default: false, placement: 'top' }),
  regtest: flag({ category: 'chain', description: 'Use the regression test network.', default: false, placement: 'top' }),
  rpcconnect: text({
    category: 'rpc',
    arg: '<ip>',
    description: 'Send commands to the node at <ip>, optionally with :port (-rpcport takes precedence).',
    default: '127.0.0.1',
    check: checkHostPort,
  }),
  rpcport: integer({
    category: 'rpc',
    arg: '<port>',
    description: "Connect to JSON-RPC on <port> (default: the network's RPC port, 16180).",
    default: (net) => net.rpcPort,
    min: 1,
    max: 65535,
  }),
  rpcuser: text({ category: 'rpc', arg: '<user>', description: 'User name for JSON-RPC connections.', default: null }),
  rpcwallet: text({
    category: 'rpc',
    arg: '<walletname>',
    description: 'Send RPC for this wallet: the request goes to /wallet/<walletname> (csd has one wallet, named "").',
    default: null,
  }),
  generate: flag({
    category: 'general',
    description:
      'Generate blocks: getnewaddress, then generatetoaddress to it. Optional arguments: the number of blocks (default 1) and maxtries (default 1000000). Example: cs-cli -generate 4 1000',
    default: false,
  }),
  netinfo: flag({
    category: 'general',
    description:
      'Get network peer connection information from the node: counts by direction and network; an optional level 1-4 also lists each peer. Example: cs-cli -netinfo 1',
    default: false,
  }),
  rpcpassword: text({
    category: 'rpc',
    arg: '<pw>',
    description: "Password for JSON-RPC connections; without one, the node's cookie file is used.",
    default: null,
    sensitive: true,
  }),
  rpccookiefile: text({
    category: 'rpc',
    arg: '<file>',
    description: 'Location of the authentication cookie; relative paths are resolved against the network data directory.',
    default: '.cookie',
    negated: null,
  }),
  rpcclienttimeout: integer({
    category: 'rpc',
    arg: '<n>',
    description: 'Timeout in seconds for an HTTP request, or 0 for none.',
    default: 900,
    min: 0,
  }),
  rpcwait: flag({ category: 'rpc', description: 'Wait for the RPC server to start (and to finish warming up).', default: false }),
  rpcwaittimeout: integer({
    category: 'rpc',
    arg: '<n>',
    description: 'Timeout in seconds for -rpcwait, or 0 for none.',
    default: 0,
    min: 0,
  }),
  named: flag({ category: 'general', description: 'Pass named instead of positional arguments (name=value).', default: false }),
  stdin: flag({
    category: 'general',
    description:
      'Read extra arguments from standard input, one per line until EOF (recommended for passphrases). With -stdinrpcpass, the first line is the RPC password.',
    default: false,
  }),
  stdinrpcpass: flag({
    category: 'general',
    description: 'Read the RPC password from the first line of standard input.',
    default: false,
  }),
} satisfies OptionTable;
