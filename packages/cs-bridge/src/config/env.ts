/**
 * The bridge's configuration: variables of an environment file (KEY=VALUE lines, parsed by Node's
 * own util.parseEnv), overridden by the process environment. Every variable, its default and its
 * meaning is listed once here; docs/bridge.md and .env.example follow this table.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { amountFromValue } from '@cs/runtime/amount';
import { ConfigError as BaseConfigError, splitHostPort } from '@cs/runtime/config';

export interface VariableSpec {
  readonly name: string;
  /** '' = required (the wizard asks for it). */
  readonly default: string;
  readonly help: string;
  /** Asked by the wizard's Automatic mode, in this order. */
  readonly asked?: boolean;
}

/** The node's real default RPC port (docs/configuration.md), which the wizard suggests. */
export const DEFAULT_RPC_URL = 'http://127.0.0.1:16180';

export const VARIABLES: readonly VariableSpec[] = [
  { name: 'UPSTREAM_POOL_ADDR', default: '127.0.0.1:3332', help: 'host:port of the PoW pool', asked: true },
  { name: 'CSD_RPC_URL', default: DEFAULT_RPC_URL, help: "the node's JSON-RPC URL (csd: server=1, rpcport)", asked: true },
  { name: 'CSD_RPC_USER', default: '', help: "the node's rpcuser", asked: true },
  { name: 'CSD_RPC_PASS', default: '', help: "the node's rpcpassword", asked: true },
  { name: 'OPOI_ADDRESSES', default: '', help: 'the OPoI address held in the node wallet (it stakes, commits and is paid)', asked: true },
  {
    name: 'OPOI_REQUESTER_API_KEY',
    default: '',
    help: 'key the HTTP API requires in x-opoi-api-key (16+ characters; the wizard generates one when left empty)',
    asked: true,
  },
  { name: 'LISTEN_ADDR', default: '0.0.0.0:3532', help: 'miner-facing stratum listen address', asked: true },
  { name: 'API_LISTEN_ADDR', default: '0.0.0.0:3533', help: 'HTTP API listen address' },
  { name: 'CSD_WS_URL', default: '', help: "the node's WebSocket (csd -wsport), e.g. ws://127.0.0.1:16181; empty = poll the RPC" },
  { name: 'DATA_DIR', default: '~/.cs-bridge', help: 'data directory: the LMDB database and the lock' },
  { name: 'OPOI_STAKE_UTXO', default: '', help: "txid:vout of the wallet coin to stake from when the address has no stake (the wizard's choice)" },
  {
    name: 'OPOI_SERVES',
    default: '',
    help: "model manifest ids the bridge's miners serve (comma-separated, up to 8): declared in the STAKE, for VERIFIABLE requests",
  },
  { name: 'POOL_FEE_PERCENT', default: '1', help: "the bridge's cut of each OPoI payout, percent (0-100, two decimals)" },
  { name: 'MIN_PAYOUT', default: '0.01', help: "smallest balance paid to a miner's wallet, coins; smaller balances wait" },
  { name: 'PAYOUT_FEE_RATE', default: '', help: "payment fee rate in base units per vbyte (empty: the node wallet's estimate)" },
  { name: 'ASSIGN_TIMEOUT_SECS', default: '300', help: 'seconds a miner has to answer an assignment before it is reassigned' },
  { name: 'POLL_INTERVAL_SECS', default: '5', help: 'seconds between node polls (requests, stages, payments)' },
  { name: 'MAX_PROMPT_BYTES', default: '65536', help: 'largest prompt accepted by POST /svc/opoi/prompt (413 above)' },
  { name: 'PROMPT_RATE_LIMIT', default: '60', help: 'POST /svc/opoi/prompt calls per minute per client address (429 above; 0 = off)' },
  { name: 'LOG_LEVEL', default: 'info', help: 'trace, debug, info, warn, error' },
];

/** A configuration problem the operator has to fix; the program prints it alone, as an option's. */
export class ConfigError extends BaseConfigError {
  constructor(message: string) {
    super(message, 'config file');
  }
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface BridgeConfig {
  readonly envFile: string;
  readonly upstream: HostPort;
  readonly rpcUrl: string;
  readonly rpcUser: string;
  readonly rpcPass: string;
  readonly opoiAddress: string;
  readonly apiKey: string;
  readonly listen: HostPort;
  readonly apiListen: HostPort;
  readonly wsUrl: string | null;
  readonly dataDir: string;
  readonly stakeUtxo: { readonly txid: string; readonly vout: number } | null;
  /** Manifest ids the STAKE declares (OPOI_SERVES); empty = OPEN work only. */
  readonly serves: readonly string[];
  /** Basis points (1% = 100). */
  readonly feeBasisPoints: number;
  /** Base units. */
  readonly minPayout: bigint;
  readonly payoutFeeRate: number | null;
  readonly assignTimeoutMs: number;
  readonly pollMs: number;
  readonly maxPromptBytes: number;
  readonly promptRateLimit: number;
  readonly logLevel: string;
}

/** The file's variables (empty when it does not exist), then the process environment on top. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
}

export function mergedValues(envFile: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const values = readEnvFile(envFile);
  for (const v of VARIABLES) {
    const fromEnv = env[v.name];
    if (fromEnv !== undefined && fromEnv !== '') values[v.name] = fromEnv;
  }
  return values;
}

/** Required variables without a value. */
export function missingVariables(values: Record<string, string>): string[] {
  return VARIABLES.filter((v) => v.default === '' && v.asked && !values[v.name]).map((v) => v.name);
}

function hostPort(name: string, text: string): HostPort {
  const hp = splitHostPort(text);
  if (!hp || hp.port === null) throw new ConfigError(`${name}: "${text}" is not host:port`);
  return { host: hp.host, port: hp.port };
}

function number(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new ConfigError(`${name}: "${text}" must be a number from ${min} to ${max}`);
  return n;
}

function expandHome(path: string): string {
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

/** A model name as the chain takes one (protocol.md §11.1, `bad-opoi-model`). */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/+-]{0,63}$/;
/** The most manifests a STAKE lists (protocol.md §11.1). */
const MAX_SERVED = 8;

function parseServes(text: string): string[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const wrong = ids.find((id) => !MODEL_ID.test(id));
  if (wrong !== undefined) throw new ConfigError(`OPOI_SERVES: "${wrong}" is not a model id (1-64 of A-Z a-z 0-9 . _ : / + -)`);
  if (ids.length > MAX_SERVED) throw new ConfigError(`OPOI_SERVES: a STAKE lists at most ${MAX_SERVED} manifests`);
  if (new Set(ids).size !== ids.length) throw new ConfigError('OPOI_SERVES names a manifest twice');
  return ids;
}

/** A complete, checked configuration; ConfigError names the first variable that is wrong. */
export function parseConfig(envFile: string, values: Record<string, string>): BridgeConfig {
  const get = (name: string): string => {
    const spec = VARIABLES.find((v) => v.name === name)!;
    const value = values[name] ?? '';
    if (value !== '') return value;
    if (spec.default === '') throw new ConfigError(`${name} is not set (${spec.help})`);
    return spec.default;
  };
  const opt = (name: string): string => values[name] || VARIABLES.find((v) => v.name === name)!.default;
  const rpcUrl = get('CSD_RPC_URL');
  if (!/^https?:\/\//.test(rpcUrl)) throw new ConfigError(`CSD_RPC_URL: "${rpcUrl}" must start with http://`);
  const addresses = get('OPOI_ADDRESSES')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (addresses.length !== 1) throw new ConfigError('OPOI_ADDRESSES must name exactly one address (this bridge acts with one OPoI address)');
  const apiKey = get('OPOI_REQUESTER_API_KEY');
  if (apiKey.length < 16) throw new ConfigError('OPOI_REQUESTER_API_KEY must be at least 16 characters');
  const wsUrl = opt('CSD_WS_URL');
  if (wsUrl !== '' && !/^wss?:\/\//.test(wsUrl)) throw new ConfigError(`CSD_WS_URL: "${wsUrl}" must start with ws://`);
  const utxo = opt('OPOI_STAKE_UTXO');
  let stakeUtxo: BridgeConfig['stakeUtxo'] = null;
  if (utxo !== '') {
    const m = /^([0-9a-fA-F]{64}):(\d+)$/.exec(utxo);
    if (!m) throw new ConfigError(`OPOI_STAKE_UTXO: "${utxo}" must be <txid>:<vout>`);
    stakeUtxo = { txid: m[1].toLowerCase(), vout: Number(m[2]) };
  }
  const serves = parseServes(opt('OPOI_SERVES'));
  const fee = opt('POOL_FEE_PERCENT');
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(fee) || Number(fee) > 100)
    throw new ConfigError(`POOL_FEE_PERCENT: "${fee}" must be 0 to 100 with two decimals at most`);
  let minPayout: bigint;
  try {
    minPayout = amountFromValue(opt('MIN_PAYOUT'));
  } catch {
    throw new ConfigError(`MIN_PAYOUT: "${opt('MIN_PAYOUT')}" is not an amount in coins`);
  }
  const feeRate = opt('PAYOUT_FEE_RATE');
  return {
    envFile,
    upstream: hostPort('UPSTREAM_POOL_ADDR', get('UPSTREAM_POOL_ADDR')),
    rpcUrl,
    rpcUser: get('CSD_RPC_USER'),
    rpcPass: get('CSD_RPC_PASS'),
    opoiAddress: addresses[0],
    apiKey,
    listen: hostPort('LISTEN_ADDR', get('LISTEN_ADDR')),
    apiListen: hostPort('API_LISTEN_ADDR', get('API_LISTEN_ADDR')),
    wsUrl: wsUrl === '' ? null : wsUrl,
    dataDir: resolve(expandHome(get('DATA_DIR'))),
    stakeUtxo,
    serves,
    feeBasisPoints: Math.round(Number(fee) * 100),
    minPayout,
    payoutFeeRate: feeRate === '' ? null : number('PAYOUT_FEE_RATE', feeRate, 0, 1_000_000),
    assignTimeoutMs: number('ASSIGN_TIMEOUT_SECS', opt('ASSIGN_TIMEOUT_SECS'), 1, 86_400) * 1000,
    pollMs: number('POLL_INTERVAL_SECS', opt('POLL_INTERVAL_SECS'), 0.05, 3600) * 1000,
    maxPromptBytes: number('MAX_PROMPT_BYTES', opt('MAX_PROMPT_BYTES'), 1, 16 * 1024 * 1024),
    promptRateLimit: number('PROMPT_RATE_LIMIT', opt('PROMPT_RATE_LIMIT'), 0, 1_000_000),
    logLevel: opt('LOG_LEVEL'),
  };
}
