/**
 * cs-dashboard's settings (docs/dashboard.md, "Configuration"): a JSON file named by `-conf`, or
 * plain flags for a quick start against one node, pool and bridge. The file holds credentials,
 * so nothing here logs it; `publicView` is what may be shown or logged.
 */
import { readFileSync } from 'node:fs';
import type { RpcAuth } from '@cs/client';

export class ConfigError extends Error {}

export interface NodeEndpoint {
  readonly name: string;
  readonly rpcUrl: string;
  readonly auth: RpcAuth;
  /** Base URL the REST paths (`/rest/...`) hang from; csd serves them on the RPC port. */
  readonly restUrl: string;
  /** The node's `-wsport` WebSocket; null: no live updates from this node (the pages poll). */
  readonly wsUrl: string | null;
}

export interface DashboardConfig {
  readonly host: string;
  readonly port: number;
  readonly nodes: readonly NodeEndpoint[];
  readonly poolUrl: string | null;
  readonly bridgeUrl: string | null;
  readonly bridgeKey: string | null;
  /** The ask form spends the first node's wallet coins: an operator may turn it off. */
  readonly ask: boolean;
  readonly logLevel: string;
}

export const DEFAULT_LISTEN = '127.0.0.1:8180';
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export const HELP = `Usage:
  cs-dashboard -conf=<file.json>                 settings from a JSON file (docs/dashboard.md)
  cs-dashboard -rpcurl=<url> [-rpcuser=<u> -rpcpassword=<p> | -rpccookiefile=<f>]
               [-resturl=<url>] [-wsurl=<url>] [-poolurl=<url>] [-bridgeurl=<url> -bridgekey=<key>]
Both forms take -listen=<host:port> (default ${DEFAULT_LISTEN}), -ask=0 (no ask form) and
-loglevel=<level> (default info); on the command line they override the file's values.
`;

function httpUrl(value: unknown, what: string, schemes = ['http:', 'https:']): string {
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${what} must be a URL string`);
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new ConfigError(`${what} is not a URL: ${value}`);
  }
  if (!schemes.includes(u.protocol)) throw new ConfigError(`${what} must start with ${schemes.map((s) => `${s}//`).join(' or ')}: ${value}`);
  return value.replace(/\/+$/, '');
}

function optionalUrl(value: unknown, what: string, schemes?: string[]): string | null {
  return value === undefined || value === null || value === '' ? null : httpUrl(value, what, schemes);
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ConfigError(`${what} must be a string`);
  return value;
}

export function parseListen(value: string): { host: string; port: number } {
  const m = /^(.+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) throw new ConfigError(`listen must be host:port (e.g. ${DEFAULT_LISTEN}): ${value}`);
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port };
}

function nodeFrom(raw: Record<string, unknown>, i: number): NodeEndpoint {
  const what = `nodes[${i}]`;
  const rpcUrl = httpUrl(raw.rpcUrl, `${what}.rpcUrl`);
  const user = optionalString(raw.rpcUser, `${what}.rpcUser`);
  const password = optionalString(raw.rpcPassword, `${what}.rpcPassword`);
  const cookieFile = optionalString(raw.rpcCookieFile, `${what}.rpcCookieFile`);
  if ((user === undefined) !== (password === undefined)) throw new ConfigError(`${what}: rpcUser and rpcPassword go together`);
  if (user !== undefined && cookieFile !== undefined) throw new ConfigError(`${what}: give rpcUser/rpcPassword or rpcCookieFile, not both`);
  if (user === undefined && cookieFile === undefined) throw new ConfigError(`${what}: give rpcUser and rpcPassword, or rpcCookieFile`);
  const auth: RpcAuth = user !== undefined ? { user, password: password! } : { cookieFile: cookieFile! };
  return {
    name: optionalString(raw.name, `${what}.name`) ?? `node${i + 1}`,
    rpcUrl,
    auth,
    restUrl: optionalUrl(raw.restUrl, `${what}.restUrl`) ?? rpcUrl,
    wsUrl: optionalUrl(raw.wsUrl, `${what}.wsUrl`, ['ws:', 'wss:']),
  };
}

/** The settings from the conf file's JSON (already parsed) with command-line overrides. */
export function configFromFile(json: unknown, flags: Record<string, string> = {}): DashboardConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError('the conf file must hold one JSON object');
  const raw = json as Record<string, unknown>;
  if (!Array.isArray(raw.nodes) || raw.nodes.length === 0) throw new ConfigError('the conf file needs "nodes": a list of at least one node');
  const nodes = raw.nodes.map((n, i) => {
    if (typeof n !== 'object' || n === null) throw new ConfigError(`nodes[${i}] must be an object`);
    return nodeFrom(n as Record<string, unknown>, i);
  });
  const names = new Set(nodes.map((n) => n.name));
  if (names.size !== nodes.length) throw new ConfigError('node names must differ');
  const pool = (raw.pool ?? {}) as Record<string, unknown>;
  const bridge = (raw.bridge ?? {}) as Record<string, unknown>;
  const bridgeUrl = optionalUrl(bridge.apiUrl, 'bridge.apiUrl');
  const bridgeKey = optionalString(bridge.apiKey, 'bridge.apiKey') ?? null;
  return finish(
    {
      listen: optionalString(raw.listen, 'listen') ?? DEFAULT_LISTEN,
      nodes,
      poolUrl: optionalUrl(pool.apiUrl, 'pool.apiUrl'),
      bridgeUrl,
      bridgeKey,
      ask: raw.ask === undefined ? true : raw.ask === true,
      logLevel: optionalString(raw.logLevel, 'logLevel') ?? 'info',
    },
    flags,
  );
}

/** The settings from flags alone: one node. */
export function configFromFlags(flags: Record<string, string>): DashboardConfig {
  if (!flags.rpcurl) throw new ConfigError('give -conf=<file> or at least -rpcurl=<url> (cs-dashboard -help)');
  const node = nodeFrom(
    {
      name: 'node1',
      rpcUrl: flags.rpcurl,
      rpcUser: flags.rpcuser,
      rpcPassword: flags.rpcpassword,
      rpcCookieFile: flags.rpccookiefile,
      restUrl: flags.resturl,
      wsUrl: flags.wsurl,
    },
    0,
  );
  return finish(
    {
      listen: DEFAULT_LISTEN,
      nodes: [node],
      poolUrl: optionalUrl(flags.poolurl, '-poolurl'),
      bridgeUrl: optionalUrl(flags.bridgeurl, '-bridgeurl'),
      bridgeKey: flags.bridgekey ?? null,
      ask: true,
      logLevel: 'info',
    },
    flags,
  );
}

interface Draft {
  listen: string;
  nodes: NodeEndpoint[];
  poolUrl: string | null;
  bridgeUrl: string | null;
  bridgeKey: string | null;
  ask: boolean;
  logLevel: string;
}

function finish(d: Draft, flags: Record<string, string>): DashboardConfig {
  const { host, port } = parseListen(flags.listen ?? d.listen);
  const logLevel = flags.loglevel ?? d.logLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`loglevel must be one of ${LOG_LEVELS.join(', ')}: ${logLevel}`);
  if (flags.ask !== undefined && flags.ask !== '0' && flags.ask !== '1') throw new ConfigError(`-ask must be 0 or 1: ${flags.ask}`);
  const ask = flags.ask === undefined ? d.ask : flags.ask === '1';
  if (d.bridgeKey !== null && d.bridgeUrl === null) throw new ConfigError('a bridge API key needs the bridge API URL');
  return { host, port, nodes: d.nodes, poolUrl: d.poolUrl, bridgeUrl: d.bridgeUrl, bridgeKey: d.bridgeKey, ask, logLevel };
}

const FLAG_NAMES = [
  'conf',
  'listen',
  'loglevel',
  'ask',
  'rpcurl',
  'rpcuser',
  'rpcpassword',
  'rpccookiefile',
  'resturl',
  'wsurl',
  'poolurl',
  'bridgeurl',
  'bridgekey',
];

/** `-name=value` flags (one or two leading dashes, as csd's); `-help` gives `{help: ''}`. */
export function parseFlags(argv: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const arg of argv) {
    const m = /^--?([a-z]+)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new ConfigError(`unexpected argument ${JSON.stringify(arg)} (cs-dashboard -help)`);
    const [, name, value] = m;
    if (name === 'help' || name === 'h') return { help: '' };
    if (!FLAG_NAMES.includes(name)) throw new ConfigError(`unknown option -${name} (cs-dashboard -help)`);
    if (value === undefined) throw new ConfigError(`-${name} needs a value: -${name}=<value>`);
    flags[name] = value;
  }
  return flags;
}

export function loadConfig(argv: readonly string[]): DashboardConfig | 'help' {
  const flags = parseFlags(argv);
  if ('help' in flags) return 'help';
  if (flags.conf === undefined) return configFromFlags(flags);
  const connection = ['rpcurl', 'rpcuser', 'rpcpassword', 'rpccookiefile', 'resturl', 'wsurl', 'poolurl', 'bridgeurl', 'bridgekey'].filter(
    (f) => f in flags,
  );
  if (connection.length > 0) throw new ConfigError(`-${connection[0]} goes in the conf file when -conf is given`);
  let text: string;
  try {
    text = readFileSync(flags.conf, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read the conf file ${flags.conf}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // The parser's message may quote the file's text, which holds secrets: say only where.
    const at = /position (\d+)/.exec((e as Error).message)?.[1];
    throw new ConfigError(`the conf file ${flags.conf} is not valid JSON${at ? ` (at character ${at})` : ''}`);
  }
  return configFromFile(json, flags);
}

/** A URL without any user:password it may carry. */
function bare(url: string | null): string | null {
  if (url === null) return null;
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString().replace(/\/+$/, '');
}

/** What may be logged and shown to browsers: the endpoints without credentials. */
export function publicView(c: DashboardConfig) {
  return {
    nodes: c.nodes.map((n) => ({ name: n.name, rpcUrl: bare(n.rpcUrl), restUrl: bare(n.restUrl), wsUrl: bare(n.wsUrl) })),
    poolUrl: bare(c.poolUrl),
    bridgeUrl: bare(c.bridgeUrl),
    ask: c.ask && c.bridgeUrl !== null && c.bridgeKey !== null,
  };
}
