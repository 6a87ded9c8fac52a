/**
 * cs-network's command line: a command (up, down, status) and options in csd's vocabulary, so that
 * parsing, error messages and -help read as the other programs'. docs/cs-network.md lists them.
 */
import { resolve as resolvePath } from 'node:path';
import { splitArgv, ConfigError, resolveCommandLine, flag, integer, text, type ValuesOf, HELP_OPTION } from '@cs/runtime/config';

export const COMMANDS = ['up', 'down', 'status'] as const;
export type Command = (typeof COMMANDS)[number];

/** The lowest port of the network's block (docs/cs-network.md has the layout). */
export const DEFAULT_BASE_PORT = 17400;

export const NETWORK_OPTIONS = {
  help: HELP_OPTION,
  datadir: text({
    category: 'general',
    arg: '<dir>',
    description: "The network: every program's data, configuration, credentials and logs, and the pid file. Relative to the current directory.",
    default: './network',
  }),
  baseport: integer({
    category: 'general',
    arg: '<port>',
    description: `First port of the block of 41 loopback ports the network listens on (${DEFAULT_BASE_PORT} for a new network); remembered in the data directory, this option changes it.`,
    default: null,
    min: 1024,
    max: 65_535 - 40,
  }),
  'model-path': text({
    category: 'general',
    arg: '<file.gguf>',
    description: 'GGUF model the miners serve with the embedded engine (default: a tiny generated model); remembered in the data directory.',
    default: null,
  }),
  purge: flag({ category: 'general', description: 'With down: delete the data directory once everything has stopped.', default: false }),
};

export type NetworkValues = ValuesOf<typeof NETWORK_OPTIONS>;

export interface Invocation {
  readonly command: Command;
  readonly values: NetworkValues;
  /** The data directory, absolute. */
  readonly datadir: string;
}

/** `cs-network <command> [options]`, options before or after the command; a ConfigError names what is wrong. */
export function readInvocation(argv: readonly string[]): Invocation {
  const commands = argv.filter((a) => !a.startsWith('-'));
  const split = splitArgv(argv.filter((a) => a.startsWith('-')));
  const warnings: string[] = [];
  // Every network option is network-independent: the network is always regtest.
  const typed = resolveCommandLine(NETWORK_OPTIONS, split.options, warnings) as NetworkValues;
  if (commands.length > 1) throw new ConfigError(`one command at a time (got ${commands.join(', ')})`, 'command line');
  const command = commands[0] ?? (typed.help ? 'up' : '');
  if (!(COMMANDS as readonly string[]).includes(command))
    throw new ConfigError(command === '' ? 'no command: up, down or status' : `unknown command '${command}' (up, down or status)`, 'command line');
  if (typed.purge && command !== 'down') throw new ConfigError('-purge goes with down', 'command line');
  return { command: command as Command, values: typed, datadir: resolvePath(typed.datadir) };
}
