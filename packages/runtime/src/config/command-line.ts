/**
 * The options of a program that takes them from its command line alone (cs-pool, cs-bridge,
 * cs-dashboard, cs-miner, cs-network), each resolved as csd resolves its own: the last occurrence
 * wins, -noNAME negates, and the messages are the same.
 */
import { readFileSync } from 'node:fs';
import { NETWORK_DEFAULTS, type NetworkDefaults } from '@cs/consensus/network-defaults';
import { splitArgv } from './argv.ts';
import { ConfigError } from './errors.ts';
import { readArgv, resolve } from './settings.ts';
import type { OptionTable, ValuesOf } from './spec.ts';

export interface CommandLine<T extends OptionTable> {
  readonly values: ValuesOf<T>;
  /** Whether the operator gave the option at all, so that it can override a file's value. */
  readonly isSet: (name: keyof T & string) => boolean;
  /** Everything from the first argument without a leading dash: a subcommand and its own options, a prompt. */
  readonly positional: readonly string[];
  /** Double negatives (-nofoo=0), for the program to report. */
  readonly warnings: readonly string[];
}

/** `net` picks the per-network defaults (cs-pool's -diff); regtest's unless the program chose a network. */
export function readCommandLine<T extends OptionTable>(
  table: T,
  argv: readonly string[],
  net: NetworkDefaults = NETWORK_DEFAULTS.regtest,
): CommandLine<T> {
  const warnings: string[] = [];
  const split = splitArgv(argv);
  const occurrences = readArgv(table, split.options, warnings);
  const values: Record<string, unknown> = {};
  const set = new Set<string>();
  for (const [name, spec] of Object.entries(table)) {
    const resolved = resolve(
      spec,
      occurrences.filter((o) => o.name === name),
      net,
      warnings,
    );
    values[name] = Array.isArray(resolved.value) ? Object.freeze([...resolved.value]) : resolved.value;
    if (!resolved.set) continue;
    set.add(name);
    const problem = spec.networkCheck?.(resolved.value, net) ?? null;
    if (problem) throw new ConfigError(problem, 'command line');
  }
  return {
    // As in loadSettings: the loop filled one value per table entry, each from its own spec.
    values: Object.freeze(values) as ValuesOf<T>,
    isSet: (name) => set.has(name),
    positional: split.positional,
    warnings: [...new Set(warnings)],
  };
}

/** The version in a program's package.json (`new URL('../../package.json', import.meta.url)` from its entry file). */
export function packageVersion(packageJson: URL): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}
