/**
 * The vocabulary of the option tables (config/options.ts for csd, config/cli-options.ts for
 * cs-cli): the five kinds of option, how one textual occurrence becomes a typed value, and the
 * constructors the tables are written with. Nothing here knows a particular option.
 */
import type { NetworkDefaults } from '@cs/consensus/network-defaults';
import { formatAmount, parseAmount } from '../amount/text.ts';

export type OptionKind = 'bool' | 'int' | 'decimal' | 'string' | 'list' | 'amount';

/** Groups for -help and docs/configuration.md. */
export type OptionCategory =
  | 'general'
  | 'chain'
  | 'connection'
  | 'rpc'
  | 'zmq'
  | 'relay'
  | 'mining'
  | 'wallet'
  | 'debug'
  | 'inference'
  | 'stratum'
  | 'payout'
  | 'request';

/**
 * Where an option may be given. 'top': the command line or the top of cs.conf, never inside a
 * [section] (the chain selectors and datadir decide which section applies, so they cannot live in
 * one). 'command line': never in cs.conf (conf, help).
 */
export type Placement = 'anywhere' | 'top' | 'command line';

/** One occurrence turned into a value, or what the option expected instead. */
export type Parsed<V> = { readonly ok: true; readonly value: V } | { readonly ok: false; readonly expected: string };

export interface OptionSpec<V> {
  readonly kind: OptionKind;
  readonly category: OptionCategory;
  readonly description: string;
  /** Placeholder in help: `-rpcport=<port>`; null for switches. */
  readonly arg: string | null;
  /** The value when the option is not given; some depend on the network (rpcport). */
  readonly default: (net: NetworkDefaults) => V;
  /** Whether the default differs between networks (help shows each). */
  readonly defaultPerNetwork: boolean;
  /** What -noNAME sets; null where negating means nothing (Core's DISALLOW_NEGATION). */
  readonly negation: { readonly value: V } | null;
  /** Parses one occurrence. For lists the result holds that single item. */
  readonly parse: (raw: string) => Parsed<V>;
  /** A rule about the final value on the selected network; returns the error, or null. */
  networkCheck?(value: V, net: NetworkDefaults): string | null;
  /** Renders a value for help and docs. */
  show(value: V): string;
  readonly placement: Placement;
  /** Extra command-line spellings (-h and -? for -help). */
  readonly aliases: readonly string[];
  /** Never written to logs. */
  readonly sensitive: boolean;
  /** Warning given when cs.conf sets the option (reindex: every restart would reindex). */
  readonly fileWarning: string | null;
}

export type OptionTable = Readonly<Record<string, OptionSpec<unknown>>>;

export type ValuesOf<T extends OptionTable> = {
  readonly [K in keyof T]: T[K] extends OptionSpec<infer V> ? V : never;
};

type Default<V> = V | ((net: NetworkDefaults) => V);

interface Common {
  readonly category: OptionCategory;
  readonly description: string;
  readonly arg?: string;
  readonly placement?: Placement;
  readonly aliases?: readonly string[];
  readonly sensitive?: boolean;
  readonly fileWarning?: string;
}

interface Typed<V> {
  readonly default: Default<V>;
  /** Value of -noNAME; leave out to forbid negation. */
  readonly negated?: V;
  networkCheck?(value: V, net: NetworkDefaults): string | null;
}

function build<V>(kind: OptionKind, o: Common & Typed<V>, parse: (raw: string) => Parsed<V>, show: (value: V) => string): OptionSpec<V> {
  const d = o.default;
  const perNetwork = typeof d === 'function';
  return {
    kind,
    category: o.category,
    description: o.description,
    arg: o.arg ?? null,
    default: perNetwork ? (d as (net: NetworkDefaults) => V) : () => d,
    defaultPerNetwork: perNetwork,
    negation: 'negated' in o ? { value: o.negated as V } : null,
    parse,
    ...(o.networkCheck ? { networkCheck: o.networkCheck } : {}),
    show,
    placement: o.placement ?? 'anywhere',
    aliases: o.aliases ?? [],
    sensitive: o.sensitive ?? false,
    fileWarning: o.fileWarning ?? null,
  };
}

const ok = <V>(value: V): Parsed<V> => ({ ok: true, value });
const fail = (expected: string): Parsed<never> => ({ ok: false, expected });

const INTEGER = /^[+-]?\d+$/;

/**
 * Core's boolean reading: an empty value (a bare `-server`) is true, any integer is true unless
 * zero. Unlike Core, words such as "yes" or "true" are refused instead of silently meaning false.
 */
export function parseBool(raw: string): boolean | null {
  if (raw === '') return true;
  return INTEGER.test(raw) ? Number(raw) !== 0 : null;
}

export function flag(o: Common & Omit<Typed<boolean>, 'negated'>): OptionSpec<boolean> {
  return build<boolean>(
    'bool',
    { ...o, negated: false },
    (raw) => {
      const value = parseBool(raw);
      return value === null ? fail('0 or 1') : ok(value);
    },
    (v) => (v ? '1' : '0'),
  );
}

interface IntegerRange {
  readonly min: number;
  readonly max?: number;
}

/** An integer in [min, max]; `default: null` makes an option that is off unless set (wsport). */
export function integer(o: Common & Typed<number> & IntegerRange): OptionSpec<number>;
export function integer(o: Common & Typed<number | null> & IntegerRange): OptionSpec<number | null>;
export function integer(o: Common & Typed<number | null> & IntegerRange): OptionSpec<number | null> {
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const expected = o.max === undefined ? `an integer >= ${o.min}` : `an integer ${o.min}..${o.max}`;
  return build<number | null>(
    'int',
    o,
    (raw) => {
      const n = INTEGER.test(raw) ? Number(raw) : NaN;
      return Number.isSafeInteger(n) && n >= o.min && n <= max ? ok(n) : fail(expected);
    },
    (v) => (v === null ? '' : String(v)),
  );
}

const DECIMAL = /^\d+(?:\.\d+)?$/;

interface DecimalRange extends IntegerRange {
  /** Most digits after the point (a percentage in basis points: 2); any when left out. */
  readonly decimals?: number;
}

/**
 * A non-negative number in plain decimal notation (no sign, no exponent, as amounts), in
 * [min, max]: seconds, percentages, factors. `default: null` makes an option that is off unless set.
 */
export function decimal(o: Common & Typed<number> & DecimalRange): OptionSpec<number>;
export function decimal(o: Common & Typed<number | null> & DecimalRange): OptionSpec<number | null>;
export function decimal(o: Common & Typed<number | null> & DecimalRange): OptionSpec<number | null> {
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const range = o.max === undefined ? `a number >= ${o.min}` : `a number ${o.min}..${o.max}`;
  const expected = o.decimals === undefined ? range : `${range}, at most ${o.decimals} decimals`;
  return build<number | null>(
    'decimal',
    o,
    (raw) => {
      const fraction = raw.split('.')[1] ?? '';
      const n = DECIMAL.test(raw) && (o.decimals === undefined || fraction.length <= o.decimals) ? Number(raw) : NaN;
      return n >= o.min && n <= max ? ok(n) : fail(expected);
    },
    (v) => (v === null ? '' : String(v)),
  );
}

interface TextCheck {
  /** Returns what was expected, or null when the text is fine. */
  readonly check?: (value: string) => string | null;
}

/** Free text, optionally checked; `default: null` means unset. */
export function text(o: Common & Typed<string> & TextCheck): OptionSpec<string>;
export function text(o: Common & Typed<string | null> & TextCheck): OptionSpec<string | null>;
export function text(o: Common & Typed<string | null> & TextCheck): OptionSpec<string | null> {
  return build<string | null>(
    'string',
    o,
    (raw) => {
      const expected = o.check?.(raw) ?? null;
      return expected === null ? ok(raw) : fail(expected);
    },
    (v) => v ?? '',
  );
}

/** One word out of a fixed set; the value's type is that set (or null when unset). */
export function choice<const C extends string>(o: Common & Typed<C> & { readonly values: readonly C[] }): OptionSpec<C>;
export function choice<const C extends string>(o: Common & Typed<C | null> & { readonly values: readonly C[] }): OptionSpec<C | null>;
export function choice<const C extends string>(o: Common & Typed<C | null> & { readonly values: readonly C[] }): OptionSpec<C | null> {
  const expected = `one of ${o.values.join(', ')}`;
  return build<C | null>(
    'string',
    o,
    (raw) => {
      const found = o.values.find((v) => v === raw);
      return found === undefined ? fail(expected) : ok(found);
    },
    (v) => v ?? '',
  );
}

/**
 * A repeatable option: each occurrence adds one item, -noNAME clears what came before it.
 * `check` validates one item.
 */
export function list(
  o: Common & Omit<Typed<readonly string[]>, 'negated'> & { readonly check?: (item: string) => string | null },
): OptionSpec<readonly string[]> {
  return build<readonly string[]>(
    'list',
    { ...o, negated: [] },
    (raw) => {
      const expected = o.check?.(raw) ?? null;
      return expected === null ? ok([raw]) : fail(expected);
    },
    (v) => v.join(', '),
  );
}

/** A coin amount (written in coins, held in base units); the default is written in coins too. */
export function amount(o: Common & Omit<Typed<bigint>, 'default' | 'negated'> & { readonly default: string }): OptionSpec<bigint> {
  const units = parseAmount(o.default);
  if (units === null) throw new Error(`bad default amount ${o.default}`);
  return build<bigint>(
    'amount',
    { ...o, default: units },
    (raw) => {
      const value = parseAmount(raw);
      return value === null ? fail('an amount in coins, at most 8 decimals') : ok(value);
    },
    formatAmount,
  );
}

/** The names of a table's options that must never be logged (rpcpassword). */
export function sensitiveOptions(table: OptionTable): string[] {
  return Object.keys(table).filter((name) => table[name].sensitive);
}
