/**
 * cs-pool's options: `-key=value` on the command line (`-key` alone means 1), every one listed by
 * -help with its default. Defaults run against a local csd on regtest with no setup.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { networkByName, type ChainParams } from '@cs/consensus';

interface OptionSpec {
  readonly name: string;
  readonly default: string;
  readonly help: string;
}

export const OPTIONS: readonly OptionSpec[] = [
  { name: 'chain', default: 'regtest', help: 'network of the node: main, test or regtest (-testnet, -regtest also work)' },
  { name: 'datadir', default: '~/.cs-pool', help: "the pool's data directory (per network: <datadir>/<chain>); LMDB database, TLS certificate" },
  { name: 'db', default: 'lmdb', help: 'accounting store: lmdb (in the data directory) or postgres://user:pass@host/db' },
  { name: 'rpcconnect', default: '127.0.0.1', help: "csd's RPC host" },
  { name: 'rpcport', default: '', help: "csd's RPC port (the network's default, 16180)" },
  { name: 'rpcuser', default: '', help: 'RPC user; without it the cookie file is read' },
  { name: 'rpcpassword', default: '', help: 'RPC password' },
  { name: 'rpccookiefile', default: '', help: "csd's cookie file (default <csddatadir>/<chain dir>/.cookie)" },
  { name: 'csddatadir', default: '~/.cs', help: "csd's data directory, to find its cookie" },
  {
    name: 'zmqhashblock',
    default: '',
    help: "csd's -zmqpubhashblock address (tcp://127.0.0.1:28332): new jobs at once on a new block; long polling otherwise",
  },
  {
    name: 'pooladdress',
    default: '',
    help: "address the pool's coinbases pay; must belong to csd's wallet (default: a new wallet address, kept in the database)",
  },
  { name: 'scheme', default: 'pplns', help: 'payout scheme: pplns, prop or solo (solo: every login mines solo)' },
  { name: 'fee', default: '1', help: 'pool fee in percent of each block reward (two decimals at most)' },
  { name: 'pplnsfactor', default: '2', help: 'PPLNS window N as a multiple of the network difficulty (in share-difficulty units)' },
  { name: 'minpayout', default: '0.1', help: 'smallest balance paid, in coins' },
  {
    name: 'payoutfeerate',
    default: '',
    help: "payment transactions' fee rate in base units per vbyte (default: the wallet's estimate, which needs -fallbackfee on a quiet chain)",
  },
  { name: 'payoutinterval', default: '600', help: 'seconds between payment runs' },
  { name: 'processinterval', default: '30', help: 'seconds between crediting/maturity checks' },
  { name: 'maturity', default: '', help: "confirmations before a block's reward is paid (the network's coinbase maturity, 100)" },
  { name: 'bind', default: '0.0.0.0', help: 'address the stratum ports listen on' },
  { name: 'port', default: '3332', help: 'plain stratum port, static difficulty -diff (0 disables)' },
  { name: 'vardiffport', default: '3333', help: 'GPU stratum port with variable difficulty (0 disables)' },
  {
    name: 'rentalport',
    default: '3334',
    help: 'hash-rental (NiceHash) port: high fixed difficulty -rentaldiff, extranonce subscription (0 disables)',
  },
  { name: 'tlsport', default: '3335', help: 'TLS 1.2/1.3 stratum port with variable difficulty (0 disables)' },
  { name: 'soloport', default: '3336', help: 'solo mining port (0 disables); a SOLO: login prefix works on every port' },
  { name: 'tlscert', default: '', help: 'PEM certificate for the TLS port (default: generated at first start in the data directory)' },
  { name: 'tlskey', default: '', help: 'PEM private key for -tlscert' },
  {
    name: 'diff',
    default: '',
    help: 'start difficulty of the plain, vardiff, TLS and solo ports (powLimit = 1; default 0.05 main/test, 0.001 regtest)',
  },
  {
    name: 'rentaldiff',
    default: '',
    help: 'fixed difficulty of the rental port (default 1000 x -diff; 0.5 on regtest, whose blocks are difficulty 1)',
  },
  { name: 'vardifftarget', default: '15', help: 'vardiff: wanted seconds between shares' },
  { name: 'vardiffretarget', default: '90', help: 'vardiff: seconds between changes at least' },
  { name: 'vardiffvariance', default: '30', help: 'vardiff: tolerated deviation in percent' },
  { name: 'vardiffmin', default: '', help: 'vardiff: lowest difficulty (default -diff / 1000)' },
  { name: 'vardiffmax', default: '', help: 'vardiff: highest difficulty (default 1e9 x -diff)' },
  { name: 'targetgrace', default: '30', help: 'seconds shares at the previous difficulty are still accepted after a change' },
  { name: 'maxconnections', default: '10000', help: 'stratum connections in all' },
  { name: 'maxperip', default: '256', help: 'stratum connections per IP address' },
  { name: 'bantime', default: '600', help: 'seconds an IP stays banned' },
  { name: 'baninvalidpercent', default: '50', help: 'ban a connection when this share of its last -bancheckthreshold shares is invalid' },
  { name: 'bancheckthreshold', default: '50', help: 'shares per ban check' },
  { name: 'logintimeout', default: '30', help: 'seconds a new connection has to authorize' },
  { name: 'idletimeout', default: '600', help: 'seconds without a valid share before a miner is dropped' },
  { name: 'txrefresh', default: '30', help: 'seconds between template refreshes for new transactions' },
  { name: 'apiport', default: '4000', help: 'HTTP monitoring API and /metrics (0 disables)' },
  { name: 'apibind', default: '127.0.0.1', help: 'address of the API' },
  { name: 'instanceid', default: '', help: 'instance byte 0-255 in NONCE_1 (default random); give each front-end sharing a database its own' },
  { name: 'payouts', default: '1', help: '0: this instance never runs the payout processor (a pure stratum front-end)' },
  { name: 'loglevel', default: 'info', help: 'trace, debug, info, warn or error (JSON lines on stdout)' },
];

export class ConfigError extends Error {}

export type RawOptions = Map<string, string>;

export function parseArgs(argv: readonly string[]): RawOptions {
  const out: RawOptions = new Map();
  for (const arg of argv) {
    const m = /^--?([a-z0-9]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new ConfigError(`cannot read option '${arg}' (use -name=value; -help lists them)`);
    const [, name, value] = m;
    if (name === 'regtest' || name === 'testnet') {
      out.set('chain', name === 'testnet' ? 'test' : 'regtest');
      continue;
    }
    if (name !== 'help' && name !== 'h' && !OPTIONS.some((o) => o.name === name)) throw new ConfigError(`unknown option -${name} (-help lists them)`);
    out.set(name, value ?? '1');
  }
  return out;
}

export function helpText(): string {
  const lines = ['Usage: cs-pool [options]', '', 'A ZIP 301 stratum pool for Equihash/ZelHash miners on top of csd (docs/pool.md).', '', 'Options:'];
  for (const o of OPTIONS) lines.push(`  -${o.name}=${o.default === '' ? '<value>' : o.default}`.padEnd(34) + o.help);
  lines.push(`${'  -regtest, -testnet'.padEnd(34)}shorthands for -chain`);
  return `${lines.join('\n')}\n`;
}

export class Options {
  constructor(private readonly raw: RawOptions) {}

  has(name: string): boolean {
    return this.raw.has(name);
  }

  str(name: string): string {
    return this.raw.get(name) ?? OPTIONS.find((o) => o.name === name)!.default;
  }

  num(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const v = Number(this.str(name));
    if (!Number.isFinite(v) || v < min || v > max) throw new ConfigError(`-${name} must be a number from ${min} to ${max} (got '${this.str(name)}')`);
    return v;
  }

  net(): ChainParams {
    try {
      return networkByName(this.str('chain'));
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }

  path(name: string): string {
    const v = this.str(name);
    return v.startsWith('~/') ? join(homedir(), v.slice(2)) : v;
  }
}

/** Coins with up to 8 decimals to base units, exactly. */
export function parseCoins(text: string, option: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) throw new ConfigError(`-${option} must be an amount in coins with at most 8 decimals (got '${text}')`);
  return BigInt(m[1]) * 100_000_000n + BigInt((m[2] ?? '').padEnd(8, '0'));
}

/** Percent with at most two decimals to basis points. */
export function parsePercent(text: string, option: string): number {
  const m = /^(\d{1,2}|100)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new ConfigError(`-${option} must be a percentage from 0 to 100 with at most two decimals (got '${text}')`);
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (bp > 10_000) throw new ConfigError(`-${option} must be at most 100`);
  return bp;
}
