/**
 * Loads the settings of one program (csd or cs-cli) from its command line and cs.conf: finds the
 * data directory and the file, selects the network, and resolves every option of the program's
 * table for that network (precedence in config/settings.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve as absolute } from 'node:path';
import { NETWORK_DEFAULTS, type NetworkDefaults, type NetworkName } from '@cs/consensus/network-defaults';
import { defaultDataDir, networkDataDir, type Env } from '../datadir/paths.ts';
import { splitArgv } from './argv.ts';
import { splitConfText } from './conf-file.ts';
import { ConfigError } from './errors.ts';
import { readArgv, readConfFile, resolve, type Occurrence } from './settings.ts';
import type { OptionSpec, OptionTable, ValuesOf } from './spec.ts';

/** The options loadSettings itself needs, present in both programs' tables. */
export interface LocatingOptions {
  readonly datadir: OptionSpec<string | null>;
  readonly conf: OptionSpec<string | null>;
  readonly chain: OptionSpec<NetworkName | null>;
  readonly regtest: OptionSpec<boolean>;
  readonly testnet: OptionSpec<boolean>;
}

export interface LoadOptions<N extends NetworkDefaults> {
  /** Whether an unknown cs.conf key belongs to another program sharing the file (then skipped). */
  readonly tolerated: (key: string) => boolean;
  /**
   * What a selected network is: csd passes the chain parameters (@cs/consensus NETWORKS); a program
   * that only needs the services' defaults (cs-cli) leaves this out, gets NETWORK_DEFAULTS and
   * starts without loading the genesis blocks.
   */
  readonly networks?: Readonly<Record<NetworkName, N>>;
}

export interface Settings<T extends OptionTable, N extends NetworkDefaults = NetworkDefaults> {
  readonly network: N;
  /** Absolute; holds cs.conf. */
  readonly dataDir: string;
  /** Absolute; the selected network's folder inside dataDir (dataDir itself for main). */
  readonly networkDir: string;
  /** The configuration file looked for (it may not exist), or null with -noconf. */
  readonly confFile: string | null;
  readonly values: ValuesOf<T>;
  /** Whether the operator gave the option at all, as Core's IsArgSet. */
  readonly isSet: (name: keyof T & string) => boolean;
  /** Arguments after the options: cs-cli's method and params. */
  readonly positional: readonly string[];
  /** Non-fatal findings for the log: double negatives, unknown sections, repeated keys. */
  readonly warnings: readonly string[];
}

export function loadSettings<T extends OptionTable & LocatingOptions, N extends NetworkDefaults = NetworkDefaults>(
  table: T,
  argv: readonly string[],
  env: Env,
  options: LoadOptions<N>,
): Settings<T, N> {
  const warnings: string[] = [];
  const split = splitArgv(argv);
  const commandLine = readArgv(table, split.options, warnings);

  const baseDir = dataDirFrom(lastOf(commandLine, 'datadir')?.value, env);
  const conf = confLocation(commandLine, baseDir);
  const fileText = conf ? readConfText(conf.path, conf.explicit) : null;
  const fromFile = conf && fileText !== null ? readConfFile(table, splitConfText(fileText), conf.path, options.tolerated, warnings) : [];
  const all = [...commandLine, ...fromFile];
  const occurrencesOf = (name: string) => all.filter((o) => o.name === name);

  // Without `networks`, N is NetworkDefaults itself (the type parameter's default).
  const networks = (options.networks ?? NETWORK_DEFAULTS) as Readonly<Record<NetworkName, N>>;
  const network = networks[selectNetwork(table, occurrencesOf, warnings)];
  const dataDir = dataDirFrom(resolve(table.datadir, occurrencesOf('datadir'), network, warnings).value, env);

  const values: Record<string, unknown> = {};
  const set = new Set<string>();
  for (const [name, spec] of Object.entries(table)) {
    const resolved = resolve(spec, occurrencesOf(name), network, warnings);
    values[name] = Array.isArray(resolved.value) ? Object.freeze([...resolved.value]) : resolved.value;
    if (!resolved.set) continue;
    set.add(name);
    const problem = spec.networkCheck?.(resolved.value, network) ?? null;
    if (problem) throw new ConfigError(problem, 'chain');
  }

  return {
    network,
    dataDir,
    networkDir: networkDataDir(dataDir, network.name),
    confFile: conf?.path ?? null,
    // The one untyped step: the loop above filled one value per table entry, each from its own spec.
    values: Object.freeze(values) as ValuesOf<T>,
    isSet: (name) => set.has(name),
    positional: split.positional,
    // Options resolved twice (the network selectors, datadir) would repeat their warnings.
    warnings: [...new Set(warnings)],
  };
}

function lastOf(occurrences: readonly Occurrence[], name: string): Occurrence | undefined {
  for (let i = occurrences.length - 1; i >= 0; i--) if (occurrences[i].name === name) return occurrences[i];
  return undefined;
}

/** An absolute data directory from a -datadir value (relative to the working directory, as Core). */
function dataDirFrom(value: unknown, env: Env): string {
  const dir = typeof value === 'string' && value !== '' ? absolute(value) : defaultDataDir(env);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) {
    throw new ConfigError(`Specified data directory "${dir}" is not a directory.`, 'data directory');
  }
  return dir;
}

/** cs.conf is found through the command line alone: -conf (relative to the data directory) or the default name. */
function confLocation(commandLine: readonly Occurrence[], baseDir: string): { path: string; explicit: boolean } | null {
  const given = lastOf(commandLine, 'conf');
  if (given?.negated) return null;
  const name = typeof given?.value === 'string' && given.value !== '' ? given.value : 'cs.conf';
  return { path: absolute(baseDir, name), explicit: given !== undefined };
}

/**
 * A missing cs.conf is fine unless -conf named it; anything else that stops reading it is an
 * error. A UTF-8 byte order mark (left by some Windows editors) is not part of the first key.
 */
function readConfText(path: string, explicit: boolean): string | null {
  try {
    const text = readFileSync(path, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return null;
    if (code === 'EISDIR') throw new ConfigError(`Config file "${path}" is a directory.`, 'config file');
    throw new ConfigError(`specified config file "${path}" could not be opened (${code}).`, 'config file');
  }
}

/**
 * -chain, -regtest and -testnet, from the command line or the top of cs.conf; more than one
 * selection is an error even when they agree, as in Core.
 */
function selectNetwork(table: LocatingOptions, occurrencesOf: (name: string) => readonly Occurrence[], warnings: string[]): NetworkName {
  // These options are top-level only, so the network used to resolve them does not matter.
  const pick = <V>(spec: OptionSpec<V>, name: string) => resolve(spec, occurrencesOf(name), NETWORK_DEFAULTS.main, warnings).value as V;
  const chain = pick(table.chain, 'chain');
  const regtest = pick(table.regtest, 'regtest');
  const testnet = pick(table.testnet, 'testnet');
  if (Number(chain !== null) + Number(regtest) + Number(testnet) > 1) {
    throw new ConfigError('Invalid combination of -regtest, -testnet and -chain. Can use at most one.', 'chain');
  }
  return chain ?? (regtest ? 'regtest' : testnet ? 'test' : 'main');
}
