/**
 * Gives raw command-line and cs.conf entries their meaning under an option table, and resolves
 * each option for the selected network with Bitcoin Core's precedence:
 *
 *   command line (last occurrence wins)
 *   > the cs.conf [network] section > the top of cs.conf (first value wins, as in Core)
 *   > the default.
 *
 * Repeatable options take all command-line values, which replace the file's; from the file they
 * take the network section's values followed by the top-level ones. -noNAME clears what came
 * before it (and, in a section, stops the top-level values from applying).
 */
import { NETWORK_DEFAULTS, type NetworkDefaults, type NetworkName } from '@cs/consensus/network-defaults';
import type { RawArg } from './argv.ts';
import type { RawConfFile } from './conf-file.ts';
import { ConfigError } from './errors.ts';
import { parseBool, type OptionSpec, type OptionTable } from './spec.ts';

/** One occurrence of an option with its parsed value. */
export interface Occurrence {
  readonly name: string;
  readonly value: unknown;
  readonly negated: boolean;
  /** null on the command line; '' at the top of cs.conf; else the section. */
  readonly section: string | null;
  readonly line: number | null;
}

const SECTIONS: readonly string[] = ['main', 'test', 'regtest'] satisfies readonly NetworkName[];

interface Key {
  readonly name: string;
  readonly negated: boolean;
}

function keyIndex(table: OptionTable): Map<string, Key> {
  const index = new Map<string, Key>();
  for (const [name, spec] of Object.entries(table)) {
    index.set(name, { name, negated: false });
    index.set(`no${name}`, { name, negated: true });
    for (const alias of spec.aliases) index.set(alias, { name, negated: false });
  }
  return index;
}

/**
 * Parses one occurrence. `raw` is null for a bare `-key`; `where` is appended to messages
 * (" in /x/cs.conf line 3").
 */
function interpret(spec: OptionSpec<unknown>, key: Key, raw: string | null, where: string, warnings: string[]) {
  const written = key.negated ? `no${key.name}` : key.name;
  const invalid = (value: string, expected: string) =>
    new ConfigError(`Invalid value for -${written}: '${value}' (expected ${expected})${where}`, where ? 'config file' : 'command line');
  if (key.negated) {
    if (!spec.negation) throw invalidNegation(key.name, where);
    const negate = raw === null ? true : parseBool(raw);
    if (negate === null) throw invalid(raw ?? '', '0 or 1');
    if (negate) return { value: spec.negation.value, negated: true };
    // -nofoo=0: Core accepts the double negative for booleans, with a warning.
    if (spec.kind !== 'bool') throw invalid(raw ?? '', '1: a double negative only makes sense for a boolean option');
    warnings.push(`Parsed potentially confusing double-negative -${written}=${raw}${where}`);
    return { value: true, negated: false };
  }
  const parsed = spec.parse(raw ?? '');
  if (!parsed.ok) throw invalid(raw ?? '', parsed.expected);
  return { value: parsed.value, negated: false };
}

function invalidNegation(name: string, where: string): ConfigError {
  return new ConfigError(`Negating of -${name} is meaningless and therefore forbidden${where}`, where ? 'config file' : 'command line');
}

export function readArgv(table: OptionTable, args: readonly RawArg[], warnings: string[]): Occurrence[] {
  const index = keyIndex(table);
  return args.map((arg) => {
    const key = index.get(arg.key);
    // Core refuses `-regtest.rpcport` on the command line too: sections exist only in the file.
    if (!key) throw new ConfigError(`Invalid parameter -${arg.key}`, 'command line');
    const { value, negated } = interpret(table[key.name], key, arg.value, '', warnings);
    return { name: key.name, value, negated, section: null, line: null };
  });
}

/**
 * Gives cs.conf entries their meaning. `tolerated(key)` says whether an unknown key belongs to
 * another program sharing the file (it is skipped) or is a mistake (an error).
 */
export function readConfFile(
  table: OptionTable,
  file: RawConfFile,
  path: string,
  tolerated: (key: string) => boolean,
  warnings: string[],
): Occurrence[] {
  const index = keyIndex(table);
  for (const section of file.sections) {
    if (!SECTIONS.includes(section.name)) warnings.push(`Section [${section.name}] is not recognized (${path} line ${section.line}).`);
  }
  const out: Occurrence[] = [];
  for (const entry of file.entries) {
    const where = ` in ${path} line ${entry.line}`;
    const key = index.get(entry.key);
    if (!key) {
      if (tolerated(entry.key.replace(/^no/, '')) || tolerated(entry.key)) continue;
      const shown = entry.section ? `${entry.section}.${entry.key}` : entry.key;
      throw new ConfigError(`Invalid configuration value ${shown}${where}`, 'config file');
    }
    const spec = table[key.name];
    if (spec.placement === 'command line') {
      throw new ConfigError(`-${key.name} cannot be set in the configuration file${where}`, 'config file');
    }
    if (spec.placement === 'top' && entry.section !== '') {
      throw new ConfigError(`-${key.name} cannot be set in a network section of the configuration file${where}`, 'config file');
    }
    const { value, negated } = interpret(spec, key, entry.value, where, warnings);
    if (spec.fileWarning) warnings.push(spec.fileWarning);
    out.push({ name: key.name, value, negated, section: entry.section, line: entry.line });
  }
  return out;
}

/** The value of one option on `net`, and whether the operator set it at all. */
export interface Resolved {
  readonly value: unknown;
  readonly set: boolean;
}

/** Resolves one option from its own occurrences, in the order they were read (command line first). */
export function resolve(spec: OptionSpec<unknown>, occurrences: readonly Occurrence[], net: NetworkDefaults, warnings: string[]): Resolved {
  const cmd = occurrences.filter((o) => o.section === null);
  const scopes = [occurrences.filter((o) => o.section === net.name), occurrences.filter((o) => o.section === '')];
  if (spec.kind === 'list') return resolveList(cmd, scopes) ?? { value: spec.default(net), set: false };

  const last = cmd.at(-1);
  if (last) return { value: last.value, set: true };
  for (const scope of scopes) {
    if (scope.length === 0) continue;
    const negation = lastNegation(scope);
    if (negation === scope.length - 1) return { value: scope[negation].value, set: true };
    const candidates = scope.slice(negation + 1);
    if (candidates.length > 1) {
      const where = scope[0].section ? `the [${scope[0].section}] section` : 'the top';
      warnings.push(
        `-${scope[0].name} is set more than once at ${where} of the configuration file (lines ${candidates.map((o) => o.line).join(', ')}); ` +
          'the first value is used, as in Bitcoin Core',
      );
    }
    return { value: candidates[0].value, set: true };
  }
  return { value: spec.default(net), set: false };
}

function lastNegation(occurrences: readonly Occurrence[]): number {
  for (let i = occurrences.length - 1; i >= 0; i--) if (occurrences[i].negated) return i;
  return -1;
}

function resolveList(cmd: readonly Occurrence[], scopes: readonly (readonly Occurrence[])[]): Resolved | null {
  const items = (occurrences: readonly Occurrence[]) => occurrences.slice(lastNegation(occurrences) + 1).flatMap((o) => o.value as readonly string[]);
  if (cmd.length > 0) return { value: items(cmd), set: true };
  const [section, top] = scopes;
  if (section.length === 0 && top.length === 0) return null;
  const fromSection = items(section);
  return { value: section.some((o) => o.negated) ? fromSection : [...fromSection, ...items(top)], set: true };
}

/**
 * The values of a program whose options are command-line only and the same on every network
 * (cs-miner, cs-network): each resolved as csd resolves its own, with regtest's defaults.
 */
export function resolveCommandLine(table: OptionTable, args: readonly RawArg[], warnings: string[]): Record<string, unknown> {
  const occurrences = readArgv(table, args, warnings);
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    values[name] = resolve(
      spec,
      occurrences.filter((o) => o.name === name),
      NETWORK_DEFAULTS.regtest,
      warnings,
    ).value;
  }
  return values;
}
