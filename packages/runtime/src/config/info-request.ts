import { splitArgv } from './argv.ts';
import { readArgv } from './settings.ts';
import type { OptionSpec, OptionTable } from './spec.ts';

/**
 * Whether the command line asks for -version or -help (-h, -?), decided from the command line
 * alone, before cs.conf is read, so that both work even with a broken configuration file (Core
 * checks them at the same point). -version wins when both are given. Throws ConfigError for a
 * malformed command line.
 */
export function infoRequest(
  table: OptionTable & { readonly help: OptionSpec<boolean>; readonly version: OptionSpec<boolean> },
  argv: readonly string[],
): 'version' | 'help' | null {
  const commandLine = readArgv(table, splitArgv(argv).options, []);
  const given = (name: string) => commandLine.some((o) => o.name === name && o.value === true);
  if (given('version')) return 'version';
  return given('help') ? 'help' : null;
}
