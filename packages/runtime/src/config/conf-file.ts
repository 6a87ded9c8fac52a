import { ConfigError } from './errors.ts';

/** One `key=value` line of cs.conf, before any table gives it a meaning. */
export interface RawFileEntry {
  /** '' above any [section]; otherwise the section's name (or the prefix of `regtest.key=`). */
  readonly section: string;
  /** The name, possibly with a `no` prefix: "rpcport", "noconnect". */
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

export interface RawConfFile {
  readonly entries: readonly RawFileEntry[];
  /** Every section named in the file, by a [header] or a `section.key=` prefix. */
  readonly sections: readonly { readonly name: string; readonly line: number }[];
}

const SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const trim = (s: string): string => s.replace(SPACE, '');

/**
 * Splits cs.conf text as Core's GetConfigOptions does: everything from '#' to the end of the line
 * is a comment, lines are trimmed, blank lines are skipped, `[name]` opens a section and every
 * other line must be `key=value`. A '#' in an rpcpassword line is refused rather than guessed at:
 * the password might contain it.
 */
export function splitConfText(text: string): RawConfFile {
  const entries: RawFileEntry[] = [];
  const sections: { name: string; line: number }[] = [];
  let prefix = '';
  text.split('\n').forEach((original, index) => {
    const line = index + 1;
    const hash = original.indexOf('#');
    const str = trim(hash < 0 ? original : original.slice(0, hash));
    if (str === '') return;
    if (str.startsWith('[') && str.endsWith(']')) {
      const name = str.slice(1, -1);
      sections.push({ name, line });
      prefix = `${name}.`;
      return;
    }
    if (str.startsWith('-')) {
      throw new ConfigError(`parse error on line ${line}: ${str}, options in configuration file must be specified without leading -`, 'config file');
    }
    const eq = str.indexOf('=');
    if (eq < 0) {
      const hint = str.length >= 2 && str.startsWith('no') ? `, if you intended to specify a negated option, use ${str}=1 instead` : '';
      throw new ConfigError(`parse error on line ${line}: ${str}${hint}`, 'config file');
    }
    const name = prefix + trim(str.slice(0, eq));
    if (hash >= 0 && name.includes('rpcpassword')) {
      throw new ConfigError(`parse error on line ${line}, using # in rpcpassword can be ambiguous and should be avoided`, 'config file');
    }
    const dot = name.indexOf('.');
    if (dot >= 0 && dot >= prefix.length) sections.push({ name: name.slice(0, dot), line });
    entries.push({
      section: dot < 0 ? '' : name.slice(0, dot),
      key: dot < 0 ? name : name.slice(dot + 1),
      value: trim(str.slice(eq + 1)),
      line,
    });
  });
  return { entries, sections };
}
