/** cs-miner's configuration from its command line: the option table resolved and checked. */
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import type { EquihashParams } from '@cs/consensus';
import { splitArgv, ConfigError, resolveCommandLine, type ValuesOf } from '@cs/runtime/config';
import { algorithmByName } from '@cs/stratum';
import { parsePoolUrl, type PoolUrl } from '../stratum/pool-url.ts';
import { MINER_OPTIONS } from './options.ts';

export type MinerValues = ValuesOf<typeof MINER_OPTIONS>;

export type ModelBackend =
  | { readonly kind: 'llama'; readonly path: string }
  | { readonly kind: 'ollama' | 'openai'; readonly url: string; readonly remoteModel: string };

export interface ModelEntry {
  readonly name: string;
  readonly backend: ModelBackend;
}

export interface MinerConfig {
  readonly values: MinerValues;
  readonly pools: readonly PoolUrl[];
  readonly user: string;
  readonly threads: number;
  /** Percent of each solver thread's time spent solving (-cpulimit). */
  readonly cpuLimit: number;
  readonly llamaThreads: number;
  readonly defaultAlgorithm: EquihashParams;
  readonly tlsCa: string | null;
  readonly models: readonly ModelEntry[];
}

/** Reads the options; a ConfigError names the first bad one. */
export function readOptions(argv: readonly string[]): MinerValues {
  const split = splitArgv(argv);
  if (split.positional.length > 0) throw new ConfigError(`unexpected argument '${split.positional[0]}' (options are -name=value)`, 'command line');
  const warnings: string[] = [];
  // The network does not matter: no miner option has a per-network default.
  return resolveCommandLine(MINER_OPTIONS, split.options, warnings) as MinerValues;
}

export function buildConfig(values: MinerValues): MinerConfig {
  if (values.pool.length === 0) throw new ConfigError('no pool: give -pool=stratum+tcp://host:port (repeat it for failover)', 'command line');
  if (!values.user) throw new ConfigError('no login: give -user=<wallet_address>.<worker_name>', 'command line');
  const pools = values.pool.map((p) => {
    try {
      return parsePoolUrl(p);
    } catch (e) {
      throw new ConfigError(`Invalid value for -pool: ${(e as Error).message}`, 'command line');
    }
  });
  let tlsCa: string | null = null;
  if (values.tlsca) {
    try {
      tlsCa = readFileSync(values.tlsca, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read -tlsca ${values.tlsca}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'command line');
    }
  }
  const cores = availableParallelism();
  return {
    values,
    pools,
    user: values.user,
    threads: values.threads === 0 ? cores : values.threads,
    cpuLimit: Number(values.cpulimit),
    llamaThreads: values['llama-threads'] === 0 ? Math.max(1, Math.floor(cores / 2)) : values['llama-threads'],
    defaultAlgorithm: algorithmByName(values.algo),
    tlsCa,
    models: modelEntries(values),
  };
}

/** -model entries and the -model-path shorthand; a name given twice is an error. */
function modelEntries(values: MinerValues): ModelEntry[] {
  const entries: ModelEntry[] = values.model.map(parseModel);
  const path = values['model-path'];
  if (path) entries.push({ name: values['model-name'] ?? basename(path).replace(/\.gguf$/i, ''), backend: { kind: 'llama', path } });
  else if (values['model-name']) throw new ConfigError('-model-name names the model of -model-path, which is not set', 'command line');
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) throw new ConfigError(`model '${e.name}' is configured twice`, 'command line');
    seen.add(e.name);
  }
  return entries;
}

export function parseModel(text: string): ModelEntry {
  const eq = text.indexOf('=');
  const name = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  const kind = rest.slice(0, colon);
  const where = rest.slice(colon + 1);
  if (kind === 'llama') return { name, backend: { kind, path: where } };
  if (kind !== 'ollama' && kind !== 'openai') throw new ConfigError(`Invalid value for -model: '${text}' (unknown backend ${kind})`, 'command line');
  const hash = where.indexOf('#');
  const url = (hash < 0 ? where : where.slice(0, hash)).replace(/\/+$/, '');
  if (!/^https?:\/\/\S+$/.test(url))
    throw new ConfigError(`Invalid value for -model: '${text}' (${kind} needs an http:// or https:// URL)`, 'command line');
  return { name, backend: { kind, url, remoteModel: hash < 0 ? name : where.slice(hash + 1) } };
}
