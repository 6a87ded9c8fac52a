/** One command-line option as written, before any table gives it a meaning. */
export interface RawArg {
  /** The name without dashes, possibly with a `no` prefix: "rpcport", "noconnect". */
  readonly key: string;
  /** The text after the first '=', or null for a bare `-key`. */
  readonly value: string | null;
}

export interface SplitArgv {
  readonly options: readonly RawArg[];
  /** Everything from the first argument that does not start with '-': cs-cli's method and params. */
  readonly positional: readonly string[];
}

/**
 * Splits the command line as Core's ParseParameters does: `-key`, `-key=value` and `--key=value`
 * are options, and the first argument without a leading dash ends option parsing, so a param
 * such as "-1" after the method stays a param.
 */
export function splitArgv(argv: readonly string[]): SplitArgv {
  const options: RawArg[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) return { options, positional: argv.slice(i) };
    const eq = arg.indexOf('=');
    const written = eq < 0 ? arg : arg.slice(0, eq);
    const key = written.startsWith('--') ? written.slice(2) : written.slice(1);
    options.push({ key, value: eq < 0 ? null : arg.slice(eq + 1) });
  }
  return { options, positional: [] };
}
