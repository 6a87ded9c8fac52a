/**
 * cs-dashboard's settings (docs/dashboard.md, "Configuration"): a JSON file named by `-conf`, or
 * plain flags for a quick start against one node, pool and bridge. The file holds credentials,
 * so nothing here logs it; `publicView` is what may be shown or logged.
 */
import { readFileSync } from 'node:fs';
import type { RpcAuth } from '@cs/client';
import { choice, type CommandLine, ConfigError as BaseConfigError, flag, INFO_OPTIONS, readCommandLine, text } from '@cs/runtime/config';

/** A configuration problem the operator has to fix; the program prints it alone, as an option's. */
export class ConfigError extends BaseConfigError {
  constructor(message: string) {
    super(message, 'config file');
  }
}

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
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export const USAGE = `Usage:
  cs-dashboard -conf=<file.json>                 settings from a JSON file (docs/dashboard.md)
  cs-dashboard -rpcurl=<url> [-rpcuser=<u> -rpcpassword=<p> | -rpccookiefile=<f>]
               [-resturl=<url>] [-wsurl=<url>] [-poolurl=<url>] [-bridgeurl=<url> -bridgekey=<key>]
Both forms take -listen, -ask and -loglevel; on the command line they override the file's values.
`;

const nonEmpty = (what: string) => (value: string) => (value === '' ? what : null);

/** Why `value` is not host:port, or null. */
function listenProblem(value: string): string | null {
  const m = /^(.+):(\d{1,5})$/.exec(value);
  return m && Number(m[2]) <= 65535 ? null : `host:port, e.g. ${DEFAULT_LISTEN}`;
}

const endpoint = (arg: string, description: string, sensitive = false) =>
  text({ category: 'connection', arg, description, default: null, check: nonEmpty(`a non-empty ${arg}`), sensitive });

export const DASHBOARD_OPTIONS = {
  ...INFO_OPTIONS,
  conf: text({
    category: 'general',
    arg: '<file.json>',
    description: 'Read the settings from this JSON file (docs/dashboard.md); the node, pool and bridge options then go in it.',
    default: null,
    check: nonEmpty('a file name'),
  }),
  listen: text({
    category: 'general',
    arg: '<host:port>',
    description: 'Address the dashboard serves on.',
    default: DEFAULT_LISTEN,
    check: listenProblem,
  }),
  ask: flag({ category: 'general', description: "The ask form, which spends the first node's wallet coins (-noask or -ask=0: off).", default: true }),
  loglevel: choice({
    category: 'general',
    arg: '<level>',
    description: 'Least severe log level written (JSON lines on stdout).',
    values: LOG_LEVELS,
    default: 'info',
  }),
  rpcurl: endpoint('<url>', "The node's JSON-RPC URL."),
  rpcuser: endpoint('<user>', "The node's RPC user (with -rpcpassword)."),
  rpcpassword: endpoint('<pw>', "The node's RPC password.", true),
  rpccookiefile: endpoint('<file>', "The node's cookie file (instead of -rpcuser and -rpcpassword)."),
  resturl: endpoint('<url>', "Base URL of the node's REST paths (default: -rpcurl)."),
  wsurl: endpoint('<url>', "The node's -wsport WebSocket, ws:// or wss:// (default: none; the pages poll)."),
  poolurl: endpoint('<url>', "cs-pool's HTTP API (default: none, no pool page)."),
  bridgeurl: endpoint('<url>', "cs-bridge's HTTP API (default: none, no OPoI page)."),
  bridgekey: endpoint('<key>', "cs-bridge's requester API key, for the ask form.", true),
};

export type DashboardFlags = CommandLine<typeof DASHBOARD_OPTIONS>;

/** The node, pool and bridge options, which belong in the conf file when there is one. */
const CONNECTION_FLAGS = ['rpcurl', 'rpcuser', 'rpcpassword', 'rpccookiefile', 'resturl', 'wsurl', 'poolurl', 'bridgeurl', 'bridgekey'] as const;

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
  if (listenProblem(value)) throw new ConfigError(`listen must be host:port (e.g. ${DEFAULT_LISTEN}): ${value}`);
  const m = /^(.+):(\d{1,5})$/.exec(value)!;
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
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
export function configFromFile(json: unknown, flags: DashboardFlags = readFlags([])): DashboardConfig {
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
export function configFromFlags(flags: DashboardFlags): DashboardConfig {
  const v = flags.values;
  if (v.rpcurl === null) throw new ConfigError('give -conf=<file> or at least -rpcurl=<url> (cs-dashboard -help)');
  const node = nodeFrom(
    {
      name: 'node1',
      rpcUrl: v.rpcurl,
      rpcUser: v.rpcuser,
      rpcPassword: v.rpcpassword,
      rpcCookieFile: v.rpccookiefile,
      restUrl: v.resturl,
      wsUrl: v.wsurl,
    },
    0,
  );
  return finish(
    {
      listen: DEFAULT_LISTEN,
      nodes: [node],
      poolUrl: optionalUrl(v.poolurl, '-poolurl'),
      bridgeUrl: optionalUrl(v.bridgeurl, '-bridgeurl'),
      bridgeKey: v.bridgekey,
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

function finish(d: Draft, flags: DashboardFlags): DashboardConfig {
  const { host, port } = parseListen(flags.isSet('listen') ? flags.values.listen : d.listen);
  const logLevel = flags.isSet('loglevel') ? flags.values.loglevel : d.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError(`loglevel must be one of ${LOG_LEVELS.join(', ')}: ${logLevel}`);
  const ask = flags.isSet('ask') ? flags.values.ask : d.ask;
  if (d.bridgeKey !== null && d.bridgeUrl === null) throw new ConfigError('a bridge API key needs the bridge API URL');
  return { host, port, nodes: d.nodes, poolUrl: d.poolUrl, bridgeUrl: d.bridgeUrl, bridgeKey: d.bridgeKey, ask, logLevel };
}

/** The command line, in csd's spelling and with its messages; -help and -version are the program's to answer first. */
export function readFlags(argv: readonly string[]): DashboardFlags {
  const flags = readCommandLine(DASHBOARD_OPTIONS, argv);
  if (flags.positional.length > 0)
    throw new ConfigError(`unexpected argument '${flags.positional[0]}' (options are -name=value; cs-dashboard -help)`);
  return flags;
}

export function loadConfig(argv: readonly string[]): DashboardConfig {
  const flags = readFlags(argv);
  const conf = flags.values.conf;
  if (conf === null) return configFromFlags(flags);
  const connection = CONNECTION_FLAGS.filter((f) => flags.isSet(f));
  if (connection.length > 0) throw new ConfigError(`-${connection[0]} goes in the conf file when -conf is given`);
  let raw: string;
  try {
    raw = readFileSync(conf, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read the conf file ${conf}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    // The parser's message may quote the file's text, which holds secrets: say only where.
    const at = /position (\d+)/.exec((e as Error).message)?.[1];
    throw new ConfigError(`the conf file ${conf} is not valid JSON${at ? ` (at character ${at})` : ''}`);
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
