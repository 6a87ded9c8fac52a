/**
 * Every csd option, the one place options are defined: kind, default, meaning and validation.
 * Defaults follow Bitcoin Core unless the interface document or docs/configuration.md says
 * otherwise (txindex and addressindex are on, the rate limits are ours). Each option is written
 * out for operators in docs/configuration.md; a test keeps the two in step.
 */
import { MAX_BLOCK_WEIGHT } from '@cs/consensus';
import {
  amount,
  choice,
  flag,
  integer,
  list,
  text,
  type OptionTable,
  checkHostPort,
  checkSubnet,
  checkZmqEndpoint,
  INFO_OPTIONS,
  LOG_LEVELS,
  NETWORK_NAMES,
} from '@cs/runtime/config';
import { parseWhitelistEntry } from './whitelist.ts';

const PORT = { min: 1, max: 65535, arg: '<port>' } as const;

function zmqTopic(what: string) {
  return list({
    category: 'zmq',
    arg: '<address>',
    description: `Publish ${what} in <address> (tcp://host:port or ipc://path); repeat to publish on several endpoints, each carrying only the topics configured for it.`,
    default: [],
    check: checkZmqEndpoint,
  });
}

function zmqHighWaterMark(topic: string) {
  return integer({
    category: 'zmq',
    arg: '<n>',
    description: `Outbound message high water mark for the ${topic} publisher: messages queued beyond it for a slow subscriber are dropped.`,
    default: 1000,
    min: 0,
  });
}

export const NODE_OPTIONS = {
  ...INFO_OPTIONS,
  conf: text({
    category: 'general',
    arg: '<file>',
    description: 'Read the configuration from <file>; relative paths are resolved against the data directory. -noconf reads no file.',
    default: 'cs.conf',
    negated: null,
    placement: 'command line',
  }),
  datadir: text({
    category: 'general',
    arg: '<dir>',
    description: 'Data directory (default ~/.cs); created when missing. Network data goes to a subfolder: testnet/ or regtest/.',
    default: null,
    placement: 'top',
  }),
  printtoconsole: flag({
    category: 'general',
    description: 'Also write the log to standard output, one human-readable line per entry (debug.log keeps JSON lines).',
    default: true,
  }),
  loglevel: choice({
    category: 'general',
    arg: '<level>',
    description: 'Least severe log level written: error, warn, info, debug or trace.',
    values: LOG_LEVELS,
    default: 'info',
  }),
  reindex: flag({
    category: 'general',
    description: 'Rebuild the chain state and the indexes from the stored blocks on startup.',
    default: false,
    fileWarning: 'reindex=1 is set in the configuration file, so every restart reindexes; remove it once the reindex has run.',
  }),
  txindex: flag({
    category: 'general',
    description: 'Maintain a full transaction index, used by getrawtransaction and /rest/tx for any transaction.',
    default: true,
  }),
  addressindex: flag({
    category: 'general',
    description: 'Maintain an address index, used by /rest/address; with it off that endpoint answers an error.',
    default: true,
  }),
  par: integer({
    category: 'general',
    arg: '<n>',
    description: 'Script verification threads: 0 = one per core, a negative number leaves that many cores free (at most 15).',
    default: 0,
    min: -1024,
    max: 15,
  }),
  dbcache: integer({
    category: 'general',
    arg: '<MiB>',
    description: 'Memory for UTXO changes not yet written while catching up (sync, -reindex), in MiB.',
    default: 450,
    min: 4,
  }),

  chain: choice({
    category: 'chain',
    arg: '<chain>',
    description: 'Network to use: main, test or regtest.',
    values: NETWORK_NAMES,
    default: null,
    placement: 'top',
  }),
  testnet: flag({ category: 'chain', description: 'Use the test network (same as -chain=test).', default: false, placement: 'top' }),
  regtest: flag({
    category: 'chain',
    description: 'Use the regression test network, where blocks are mined on demand (same as -chain=regtest).',
    default: false,
    placement: 'top',
  }),

  listen: flag({
    category: 'connection',
    description: 'Accept connections from outside (default: 1 if no -connect).',
    default: true,
  }),
  port: integer({
    category: 'connection',
    ...PORT,
    description: 'Listen for peer-to-peer connections on <port>, and connect to peers on it when they give none.',
    default: (net) => net.p2pPort,
  }),
  bind: list({
    category: 'connection',
    arg: '<addr>[:port]',
    description: 'Listen for peers on this address (and port); repeatable. Default: every IPv4 and IPv6 address.',
    default: [],
    check: checkHostPort,
  }),
  connect: list({
    category: 'connection',
    arg: '<addr>[:port]',
    description: 'Connect only to these peers (no address manager, no -seednode); repeatable. Implies -listen=0 unless -listen is given.',
    default: [],
    check: checkHostPort,
  }),
  addnode: list({
    category: 'connection',
    arg: '<addr>[:port]',
    description: 'Keep a connection to this peer, reconnecting when it drops; repeatable.',
    default: [],
    check: checkHostPort,
  }),
  seednode: list({
    category: 'connection',
    arg: '<addr>[:port]',
    description: 'Connect to this peer to learn addresses, then disconnect; repeatable.',
    default: [],
    check: checkHostPort,
  }),
  maxconnections: integer({
    category: 'connection',
    arg: '<n>',
    description: 'Keep at most <n> peer connections (8 of them outbound).',
    default: 125,
    min: 0,
  }),
  whitelist: list({
    category: 'connection',
    arg: '[<permissions>@]<subnet>',
    description:
      "Grant the permissions to peers from this address or subnet; repeatable. <permissions> is a comma list of Core's words (bloomfilter, noban, forcerelay, relay, mempool, download, addr, all) and the directions in and out: without a direction, only peers connecting to us; out, the connections we make by hand (-connect, -addnode). Without '@': noban, mempool and relay (see -whitelistrelay, -whitelistforcerelay).",
    default: [],
    check: (value) => {
      const entry = parseWhitelistEntry(value);
      return typeof entry === 'string' ? entry : null;
    },
  }),
  peertimeout: integer({
    category: 'connection',
    arg: '<n>',
    description: 'Seconds a new peer connection has to complete the version handshake.',
    default: 60,
    min: 1,
  }),
  bantime: integer({
    category: 'connection',
    arg: '<n>',
    description: 'Seconds a setban without a time bans for.',
    default: 86400,
    min: 1,
  }),
  server: flag({ category: 'rpc', description: 'Accept JSON-RPC commands.', default: true }),
  rpcuser: text({ category: 'rpc', arg: '<user>', description: 'User name for JSON-RPC connections.', default: null }),
  rpcpassword: text({
    category: 'rpc',
    arg: '<pw>',
    description: 'Password for JSON-RPC connections. Without one, csd writes a cookie file that cs-cli reads.',
    default: null,
    sensitive: true,
  }),
  rpcport: integer({
    category: 'rpc',
    ...PORT,
    description: 'Serve JSON-RPC and REST on <port>.',
    default: (net) => net.rpcPort,
  }),
  rpcbind: list({
    category: 'rpc',
    arg: '<addr>[:port]',
    description:
      'Bind the RPC/REST server to this address; repeatable. Used only together with -rpcallowip; otherwise the server listens on loopback only.',
    default: ['127.0.0.1', '::1'],
    check: checkHostPort,
  }),
  rpcallowip: list({
    category: 'rpc',
    arg: '<ip>',
    description:
      'Allow JSON-RPC from this source: a single IP (1.2.3.4, ::1), a network/CIDR (10.0.0.0/8) or a network/netmask (192.168.1.0/255.255.255.0); repeatable. Loopback is always allowed.',
    default: [],
    check: checkSubnet,
  }),
  rpccookiefile: text({
    category: 'rpc',
    arg: '<file>',
    description:
      'Location of the authentication cookie; relative paths are resolved against the network data directory. -norpccookiefile writes none.',
    default: '.cookie',
    negated: null,
  }),
  rpccorsdomain: text({
    category: 'rpc',
    arg: '<origin>',
    description: 'Allow cross-origin browser requests from this origin (e.g. https://example.org).',
    default: null,
    negated: null,
  }),
  rpcratelimit: integer({
    category: 'rpc',
    arg: '<n>',
    description: 'JSON-RPC requests per minute per client address; 0 = unlimited.',
    default: 100,
    min: 0,
    negated: 0,
  }),
  rest: flag({ category: 'rpc', description: 'Serve the read-only, unauthenticated REST interface under /rest/.', default: false }),
  restratelimit: integer({
    category: 'rpc',
    arg: '<n>',
    description:
      'REST requests per minute per client address and endpoint group (chaininfo, block, tx, headers, getutxos, blockhashbyheight, opoi); address and mempool get half; 0 = unlimited.',
    default: 200,
    min: 0,
    negated: 0,
  }),
  wsport: integer({
    category: 'rpc',
    ...PORT,
    description: 'Serve WebSocket notifications on <port> (off unless set; 16181 in the samples).',
    default: null,
    negated: null,
  }),
  wsratelimit: integer({
    category: 'rpc',
    arg: '<n>',
    description: 'WebSocket messages per minute per connection (over it: an error, then the connection is closed); 0 = unlimited.',
    default: 1000,
    min: 0,
    negated: 0,
  }),

  zmqpubrawblock: zmqTopic('raw blocks'),
  zmqpubrawtx: zmqTopic('raw transactions'),
  zmqpubhashblock: zmqTopic('block hashes'),
  zmqpubhashtx: zmqTopic('transaction ids'),
  zmqpubsequence: zmqTopic('block and mempool sequence events'),
  zmqpubopoi: zmqTopic('OPoI lifecycle steps as JSON'),
  zmqpubrawblockhwm: zmqHighWaterMark('rawblock'),
  zmqpubrawtxhwm: zmqHighWaterMark('rawtx'),
  zmqpubhashblockhwm: zmqHighWaterMark('hashblock'),
  zmqpubhashtxhwm: zmqHighWaterMark('hashtx'),
  zmqpubsequencehwm: zmqHighWaterMark('sequence'),
  zmqpubopoihwm: zmqHighWaterMark('opoi'),

  maxmempool: integer({
    category: 'relay',
    arg: '<MB>',
    description: 'Keep the mempool under <MB> megabytes (1 MB = 1,000,000 bytes).',
    default: 300,
    // Core's floor: the mempool must hold at least one full descendant package (101 kvB) many times over.
    min: 5,
  }),
  mempoolexpiry: integer({
    category: 'relay',
    arg: '<hours>',
    description: 'Drop transactions that stayed in the mempool longer than <hours>.',
    default: 336,
    min: 1,
  }),
  whitelistrelay: flag({
    category: 'relay',
    description: "Give peers whitelisted without '@' the relay permission.",
    default: true,
  }),
  whitelistforcerelay: flag({
    category: 'relay',
    description:
      "Give peers whitelisted without '@' the forcerelay permission: a transaction they send that is already in our mempool is announced to our other peers again.",
    default: false,
  }),
  persistmempool: flag({ category: 'relay', description: 'Save the mempool on shutdown and load it on startup.', default: true }),
  minrelaytxfee: amount({
    category: 'relay',
    arg: '<amt>',
    description: 'Fee rate in coins/kvB below which transactions are not relayed or mined.',
    default: '0.00001',
  }),
  incrementalrelayfee: amount({
    category: 'relay',
    arg: '<amt>',
    description: 'Fee rate in coins/kvB a replacement must add, and the step of the mempool minimum fee after evictions.',
    default: '0.00001',
  }),
  dustrelayfee: amount({
    category: 'relay',
    arg: '<amt>',
    description: 'Fee rate in coins/kvB that defines dust: an output worth less than spending it at this rate costs.',
    default: '0.00003',
  }),
  bytespersigop: integer({
    category: 'relay',
    arg: '<n>',
    description: 'Virtual bytes charged per sigop when a transaction has more sigop cost than weight can pay for.',
    default: 20,
    min: 1,
  }),
  datacarrier: flag({ category: 'relay', description: 'Relay and mine OP_RETURN (data carrier) transactions.', default: true }),
  datacarriersize: integer({
    category: 'relay',
    arg: '<n>',
    description: 'Largest OP_RETURN output script relayed or mined, in bytes (83 = 80 bytes of data plus the opcodes).',
    default: 83,
    min: 0,
  }),
  acceptnonstdtxn: flag({
    category: 'relay',
    description: 'Relay and mine non-standard transactions (test and regtest only).',
    default: (net) => !net.requireStandard,
    networkCheck: (value, net) => (value && net.name === 'main' ? 'acceptnonstdtxn is not currently supported for main chain' : null),
  }),
  mempoolfullrbf: flag({
    category: 'relay',
    description: 'Accept replacements of transactions that do not signal BIP125 replaceability (as Core 28 and later).',
    default: true,
  }),
  permitbaremultisig: flag({ category: 'relay', description: 'Relay non-P2SH multisig outputs (up to 3 keys).', default: true }),
  limitancestorcount: integer({
    category: 'relay',
    arg: '<n>',
    description: 'A mempool transaction may have at most <n> in-mempool ancestors (itself included).',
    default: 25,
    min: 1,
  }),
  limitancestorsize: integer({
    category: 'relay',
    arg: '<kvB>',
    description: 'The in-mempool ancestors of a transaction (itself included) may weigh at most <kvB> virtual kilobytes.',
    default: 101,
    min: 1,
  }),
  limitdescendantcount: integer({
    category: 'relay',
    arg: '<n>',
    description: 'A mempool transaction may have at most <n> in-mempool descendants (itself included).',
    default: 25,
    min: 1,
  }),
  limitdescendantsize: integer({
    category: 'relay',
    arg: '<kvB>',
    description: 'The in-mempool descendants of a transaction (itself included) may weigh at most <kvB> virtual kilobytes.',
    default: 101,
    min: 1,
  }),

  blockmintxfee: amount({
    category: 'mining',
    arg: '<amt>',
    description: 'Lowest fee rate in coins/kvB of transactions included in block templates.',
    default: '0.00001',
  }),
  blockmaxweight: integer({
    category: 'mining',
    arg: '<n>',
    description: 'Maximum weight of block templates; 4000 weight units stay reserved for the coinbase.',
    default: MAX_BLOCK_WEIGHT - 4000,
    min: 4000,
    max: MAX_BLOCK_WEIGHT,
  }),

  blocktemplaterefresh: integer({
    category: 'mining',
    arg: '<n>',
    description:
      "Seconds getblocktemplate keeps answering with its cached template after the mempool changed (Core's 5); a new tip always rebuilds it. 0 rebuilds at every change: for a regtest network whose blocks come faster than 5 s.",
    default: 5,
    min: 0,
    max: 3600,
  }),

  disablewallet: flag({ category: 'wallet', description: 'Do not load the wallet; wallet RPCs are unavailable.', default: false }),
  fallbackfee: amount({
    category: 'wallet',
    arg: '<amt>',
    description: 'Fee rate in coins/kvB the wallet uses when fee estimation has no data; 0 refuses to send without an estimate.',
    default: '0',
  }),

  mocktime: integer({
    category: 'debug',
    arg: '<n>',
    description: 'Run with the clock set to <n> seconds since the epoch (regtest only; 0 = real time).',
    default: 0,
    min: 0,
    networkCheck: (value, net) => (value !== 0 && net.name !== 'regtest' ? '-mocktime is only allowed with -regtest' : null),
  }),
  assumeutxo: list({
    category: 'debug',
    arg: '<height>:<blockhash>:<hash>',
    description: 'Trust a UTXO snapshot of the block at <height> with content hash <hash> for loadtxoutset (regtest only); repeatable.',
    default: [],
    check: (item) => (/^\d+:[0-9a-f]{64}:[0-9a-f]{64}$/.test(item) ? null : `'${item}' is not <height>:<blockhash>:<hash> (64 hex digits each)`),
    networkCheck: (value, net) => (value.length > 0 && net.name !== 'regtest' ? '-assumeutxo is only allowed with -regtest' : null),
  }),
} satisfies OptionTable;
