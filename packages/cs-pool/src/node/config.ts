/**
 * cs-pool's options, in the option vocabulary every program shares (@cs/runtime/config): given on
 * the command line only, `-key=value` (`-key` alone for a switch, -noKEY to negate one), every one
 * listed by -help with its default. Defaults run against a local csd on regtest with no setup.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { networkByName, type ChainParams } from '@cs/consensus';
import { NETWORK_DEFAULTS, type NetworkName } from '@cs/consensus/network-defaults';
import {
  amount,
  choice,
  ConfigError as RuntimeConfigError,
  checkSubnet,
  decimal,
  flag,
  INFO_OPTIONS,
  integer,
  list,
  LOG_LEVELS,
  NETWORK_NAMES,
  readCommandLine,
  text,
  type OptionSpec,
  type ValuesOf,
} from '@cs/runtime/config';

const checkDifficulty = (value: string): string | null => (/^\d*\.?\d+$/.test(value) && Number(value) > 0 ? null : 'a positive number');

const checkDb = (value: string): string | null => (value === 'lmdb' || /^postgres(ql)?:\/\//.test(value) ? null : 'lmdb or a postgres:// URL');

/** A -whitelist entry's subnet: Core's form is [permissions@]<subnet>, and every permission here is noban. */
export const whitelistSubnet = (value: string): string => value.slice(value.indexOf('@') + 1);

const port = (description: string, value: number) =>
  integer({ category: 'stratum', arg: '<port>', description: `${description} (0 disables).`, default: value, min: 0, max: 65535 });

export const POOL_OPTIONS = {
  ...INFO_OPTIONS,
  datadir: text({
    category: 'general',
    arg: '<dir>',
    description: "The pool's data directory (per network: <datadir>/<chain>): LMDB database, TLS certificate.",
    default: '~/.cs-pool',
  }),
  db: text({
    category: 'general',
    arg: '<store>',
    description: 'Accounting store: lmdb (in the data directory) or postgres://user:pass@host/db.',
    default: 'lmdb',
    check: checkDb,
  }),
  dbtimeout: decimal({
    category: 'general',
    arg: '<seconds>',
    description:
      'PostgreSQL: the longest one statement (or connecting) may take, on the server (statement_timeout) and in the pool, which then drops the connection and settles what it did.',
    default: 10,
    min: 0.1,
  }),
  instanceid: integer({
    category: 'general',
    arg: '<n>',
    description: 'Instance byte 0-255 in NONCE_1 (default random); give each front-end sharing a database its own.',
    default: null,
    min: 0,
    max: 255,
  }),
  loglevel: choice({
    category: 'general',
    arg: '<level>',
    description: 'Least severe log level written (JSON lines on stdout): error, warn, info, debug or trace.',
    values: LOG_LEVELS,
    default: 'info',
  }),
  apiport: integer({
    category: 'general',
    arg: '<port>',
    description: 'HTTP monitoring API and /metrics (0 disables).',
    default: 4000,
    min: 0,
    max: 65535,
  }),
  apibind: text({ category: 'general', arg: '<addr>', description: 'Address of the API.', default: '127.0.0.1' }),
  statsinterval: decimal({
    category: 'general',
    arg: '<seconds>',
    description: "Seconds between the pool and miner samples behind the API's /performance routes (kept in memory).",
    default: 60,
    min: 0.1,
  }),

  chain: choice({
    category: 'chain',
    arg: '<chain>',
    description: 'Network of the node: main, test or regtest.',
    values: NETWORK_NAMES,
    default: 'regtest',
  }),
  regtest: flag({ category: 'chain', description: 'Same as -chain=regtest.', default: false }),
  testnet: flag({ category: 'chain', description: 'Same as -chain=test.', default: false }),

  rpcconnect: text({ category: 'rpc', arg: '<ip>', description: "csd's RPC host.", default: '127.0.0.1' }),
  rpcport: integer({ category: 'rpc', arg: '<port>', description: "csd's RPC port.", default: (net) => net.rpcPort, min: 1, max: 65535 }),
  rpcuser: text({ category: 'rpc', arg: '<user>', description: 'RPC user; without it the cookie file is read.', default: null }),
  rpcpassword: text({ category: 'rpc', arg: '<pw>', description: 'RPC password.', default: null, sensitive: true }),
  rpccookiefile: text({
    category: 'rpc',
    arg: '<file>',
    description: "csd's cookie file (default: <csddatadir>/<chain dir>/.cookie).",
    default: null,
  }),
  csddatadir: text({ category: 'rpc', arg: '<dir>', description: "csd's data directory, to find its cookie.", default: '~/.cs' }),
  zmqhashblock: text({
    category: 'rpc',
    arg: '<address>',
    description: "csd's -zmqpubhashblock address (tcp://127.0.0.1:28332): new jobs at once on a new block; long polling otherwise.",
    default: null,
  }),
  txrefresh: decimal({
    category: 'rpc',
    arg: '<seconds>',
    description: 'Seconds between template refreshes for new transactions.',
    default: 30,
    min: 1,
  }),

  bind: text({ category: 'stratum', arg: '<addr>', description: 'Address the stratum ports listen on.', default: '0.0.0.0' }),
  port: port('Plain stratum port, static difficulty -diff', 3332),
  vardiffport: port('GPU stratum port with variable difficulty', 3333),
  rentalport: port('Hash-rental (NiceHash) port: high fixed difficulty -rentaldiff, extranonce subscription', 3334),
  tlsport: port('TLS 1.2/1.3 stratum port with variable difficulty', 3335),
  soloport: port('Solo mining port; a SOLO: login prefix works on every port', 3336),
  tlscert: text({
    category: 'stratum',
    arg: '<file>',
    description: 'PEM certificate for the TLS port (default: generated at first start in the data directory).',
    default: null,
  }),
  tlskey: text({ category: 'stratum', arg: '<file>', description: 'PEM private key for -tlscert.', default: null }),
  diff: text({
    category: 'stratum',
    arg: '<difficulty>',
    description: 'Start difficulty of the plain, vardiff, TLS and solo ports (powLimit = 1).',
    default: (net) => (net.name === 'regtest' ? '0.001' : '0.05'),
    check: checkDifficulty,
  }),
  rentaldiff: text({
    category: 'stratum',
    arg: '<difficulty>',
    description: 'Fixed difficulty of the rental port (default: 1000 x -diff; 0.5 on regtest, whose blocks are difficulty 1).',
    default: null,
    check: checkDifficulty,
  }),
  vardifftarget: decimal({ category: 'stratum', arg: '<seconds>', description: 'Vardiff: wanted seconds between shares.', default: 15, min: 0.1 }),
  vardiffretarget: decimal({ category: 'stratum', arg: '<seconds>', description: 'Vardiff: seconds between changes at least.', default: 90, min: 0 }),
  vardiffvariance: decimal({
    category: 'stratum',
    arg: '<percent>',
    description: 'Vardiff: tolerated deviation in percent.',
    default: 30,
    min: 0,
    max: 100,
  }),
  vardiffmin: text({
    category: 'stratum',
    arg: '<difficulty>',
    description: 'Vardiff: lowest difficulty (default: -diff / 1000).',
    default: null,
    check: checkDifficulty,
  }),
  vardiffmax: text({
    category: 'stratum',
    arg: '<difficulty>',
    description: 'Vardiff: highest difficulty (default: 1e9 x -diff).',
    default: null,
    check: checkDifficulty,
  }),
  targetgrace: decimal({
    category: 'stratum',
    arg: '<seconds>',
    description: 'Seconds shares at the previous difficulty are still accepted after a change.',
    default: 30,
    min: 0,
  }),
  verifythreads: integer({
    category: 'stratum',
    arg: '<n>',
    description:
      "Threads checking shares' Equihash solutions, so that the main thread keeps reading, answering and sending jobs meanwhile (0: on the main thread).",
    default: 1,
    min: 0,
    max: 64,
  }),
  stratumprocesses: integer({
    category: 'stratum',
    arg: '<n>',
    description:
      "Child processes holding a share of the miners' sockets each, so that a new job is written to them by n loops at once, one per core; every decision stays in the pool's process (0: it holds them all itself).",
    default: 0,
    min: 0,
    max: 64,
  }),
  maxconnections: integer({ category: 'stratum', arg: '<n>', description: 'Stratum connections in all.', default: 10_000, min: 1 }),
  maxperip: integer({ category: 'stratum', arg: '<n>', description: 'Stratum connections per IP address.', default: 256, min: 1 }),
  bantime: decimal({ category: 'stratum', arg: '<seconds>', description: 'Seconds an IP stays banned once it is.', default: 600, min: 0 }),
  banmalformed: integer({
    category: 'stratum',
    arg: '<n>',
    description: 'Ban an IP after this many of its connections were cut for abuse (a malformed line, too many invalid shares) within -banwindow.',
    default: 5,
    min: 1,
  }),
  banlogins: integer({
    category: 'stratum',
    arg: '<n>',
    description: 'Ban an IP after this many refused logins (error 24) within -banwindow.',
    default: 20,
    min: 1,
  }),
  banwindow: decimal({
    category: 'stratum',
    arg: '<seconds>',
    description: 'Seconds over which -banmalformed and -banlogins are counted.',
    default: 600,
    min: 1,
  }),
  baninvalidpercent: decimal({
    category: 'stratum',
    arg: '<percent>',
    description: 'Cut a connection when this share of its last -bancheckthreshold shares is invalid (a strike toward -banmalformed).',
    default: 50,
    min: 1,
    max: 100,
  }),
  bancheckthreshold: integer({ category: 'stratum', arg: '<n>', description: 'Shares per invalid-share check.', default: 50, min: 1 }),
  whitelist: list({
    category: 'stratum',
    arg: '[noban@]<subnet>',
    description: 'Connections from this IP or subnet (a trusted proxy, cs-bridge) are never banned nor held to -maxperip; repeatable.',
    default: [],
    check: (value) => checkSubnet(whitelistSubnet(value)),
  }),
  logintimeout: decimal({ category: 'stratum', arg: '<seconds>', description: 'Seconds a new connection has to authorize.', default: 30, min: 1 }),
  idletimeout: decimal({
    category: 'stratum',
    arg: '<seconds>',
    description: 'Seconds without a valid share before a miner is dropped.',
    default: 600,
    min: 1,
  }),

  pooladdress: text({
    category: 'payout',
    arg: '<address>',
    description: "Address the pool's coinbases pay; must belong to csd's wallet (default: a new wallet address, kept in the database).",
    default: null,
  }),
  scheme: choice({
    category: 'payout',
    arg: '<scheme>',
    description: 'Payout scheme: pplns, prop or solo (solo: every login mines solo).',
    values: ['pplns', 'prop', 'solo'] as const,
    default: 'pplns',
  }),
  fee: decimal({
    category: 'payout',
    arg: '<percent>',
    description: 'Pool fee in percent of each PPLNS or PROP block reward.',
    default: 1,
    min: 0,
    max: 100,
    decimals: 2,
  }),
  solofee: decimal({
    category: 'payout',
    arg: '<percent>',
    description: "Fee in percent of a solo block's reward, a second coinbase output to the pool (0: the finder gets the whole reward).",
    default: 0,
    min: 0,
    max: 100,
    decimals: 2,
  }),
  pplnsfactor: decimal({
    category: 'payout',
    arg: '<factor>',
    description: 'PPLNS window N as a multiple of the network difficulty (in share-difficulty units).',
    default: 2,
    min: 0.01,
  }),
  minpayout: amount({ category: 'payout', arg: '<amount>', description: 'Smallest balance paid, in coins.', default: '0.1' }),
  payoutfeerate: decimal({
    category: 'payout',
    arg: '<rate>',
    description:
      "Payment transactions' fee rate in base units per vbyte (default: the wallet's estimate, which needs csd's -fallbackfee on a quiet chain).",
    default: null,
    min: 1,
    max: 1_000_000,
  }),
  payoutinterval: decimal({ category: 'payout', arg: '<seconds>', description: 'Seconds between payment runs.', default: 600, min: 0 }),
  processinterval: decimal({
    category: 'payout',
    arg: '<seconds>',
    description: 'Seconds between crediting and maturity checks.',
    default: 30,
    min: 0.1,
  }),
  maturity: integer({
    category: 'payout',
    arg: '<n>',
    description: "Confirmations before a block's reward is paid (default: the network's coinbase maturity, 100).",
    default: null,
    min: 1,
  }),
  payouts: flag({
    category: 'payout',
    description: 'Run the payout processor; -nopayouts (or -payouts=0) makes a pure stratum front-end.',
    default: true,
  }),
};

export type PoolOption = keyof typeof POOL_OPTIONS & string;
export type PoolValues = ValuesOf<typeof POOL_OPTIONS>;

/** A problem with the options found while starting (a pool address of another network); the program prints it alone. */
export class ConfigError extends RuntimeConfigError {
  constructor(message: string) {
    super(message, 'command line');
  }
}

/**
 * The options as the pool reads them while starting: text as -help shows it, numbers, paths with
 * `~/` expanded, the network's parameters.
 */
export class Options {
  constructor(
    readonly values: PoolValues,
    private readonly network: ChainParams,
  ) {}

  str(name: PoolOption): string {
    return (POOL_OPTIONS[name] as OptionSpec<unknown>).show(this.values[name]);
  }

  num(name: PoolOption, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const v = Number(this.str(name));
    if (!Number.isFinite(v) || v < min || v > max) throw new ConfigError(`-${name} must be a number from ${min} to ${max} (got '${this.str(name)}')`);
    return v;
  }

  net(): ChainParams {
    return this.network;
  }

  path(name: PoolOption): string {
    const v = this.str(name);
    return v.startsWith('~/') ? join(homedir(), v.slice(2)) : v;
  }
}

/**
 * Reads the command line; a ConfigError names the first bad option. -chain, -regtest and -testnet
 * select the network as in csd: at most one of them.
 */
export function readOptions(argv: readonly string[]): { options: Options; warnings: readonly string[] } {
  const first = readCommandLine(POOL_OPTIONS, argv);
  if (first.positional.length > 0) {
    throw new RuntimeConfigError(`unexpected argument '${first.positional[0]}' (options are -name=value; -help lists them)`, 'command line');
  }
  const { values } = first;
  if (Number(first.isSet('chain')) + Number(values.regtest) + Number(values.testnet) > 1) {
    throw new RuntimeConfigError('Invalid combination of -regtest, -testnet and -chain. Can use at most one.', 'command line');
  }
  const chain: NetworkName = values.testnet ? 'test' : values.regtest ? 'regtest' : values.chain;
  // -diff's default depends on the network.
  const cl = chain === 'regtest' ? first : readCommandLine(POOL_OPTIONS, argv, NETWORK_DEFAULTS[chain]);
  return { options: new Options(cl.values, networkByName(chain)), warnings: cl.warnings };
}

/** Percent with at most two decimals to basis points. */
export function parsePercent(text: string, option: string): number {
  const m = /^(\d{1,2}|100)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new ConfigError(`-${option} must be a percentage from 0 to 100 with at most two decimals (got '${text}')`);
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (bp > 10_000) throw new ConfigError(`-${option} must be at most 100`);
  return bp;
}
