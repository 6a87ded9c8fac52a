/**
 * cs-network's command line: a command (up, down, status) and options in csd's vocabulary, so that
 * parsing, error messages and -help read as the other programs'. docs/cs-network.md lists them.
 */
import { resolve as resolvePath } from 'node:path';
import { ConfigError, flag, INFO_OPTIONS, integer, type OptionTable, readCommandLine, text, type ValuesOf } from '@cs/runtime/config';

export const COMMANDS = ['up', 'down', 'status'] as const;
export type Command = (typeof COMMANDS)[number];

/** The lowest port of the network's block (docs/cs-network.md has the layout). */
export const DEFAULT_BASE_PORT = 17400;

export const NETWORK_OPTIONS = {
  ...INFO_OPTIONS,
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
  corruptanswers: text({
    category: 'general',
    arg: '<mode>',
    description:
      "For demonstrations and tests: cs-miner 1 (behind bridge 1) runs with -corruptanswers=<mode> (cs-miner's modes: token, truncate, random) and answers VERIFIABLE requests falsely, which bridge 2's audit catches; this run only, never remembered.",
    default: null,
  }),
  purge: flag({ category: 'general', description: 'With down: delete the data directory once everything has stopped.', default: false }),
};

export type NetworkValues = ValuesOf<typeof NETWORK_OPTIONS>;
type CommandOption = Exclude<keyof typeof NETWORK_OPTIONS, 'help' | 'version' | 'datadir'>;

/** What each command takes besides -help, -version and -datadir. */
const COMMAND_OPTIONS: Readonly<Record<Command, readonly CommandOption[]>> = {
  up: ['baseport', 'model-path', 'corruptanswers'],
  down: ['purge'],
  status: [],
};

/** The options one command takes, for its -help. */
export function commandOptions(command: Command): OptionTable {
  const names = ['help', 'version', 'datadir', ...COMMAND_OPTIONS[command]] as const;
  return Object.fromEntries(names.map((name) => [name, NETWORK_OPTIONS[name]]));
}

export interface Invocation {
  readonly command: Command;
  readonly values: NetworkValues;
  /** The data directory, absolute. */
  readonly datadir: string;
}

/** -help or -version, of the program (no command) or of a command. */
export interface InfoRequest {
  readonly info: 'help' | 'version';
  readonly command: Command | null;
}

const isCommand = (word: string): word is Command => (COMMANDS as readonly string[]).includes(word);

/**
 * `cs-network <command> [options]`, options before or after the command; a ConfigError names what
 * is wrong. -help and -version need no command.
 */
export function readInvocation(argv: readonly string[]): Invocation | InfoRequest {
  const words = argv.filter((a) => !a.startsWith('-'));
  // Every network option is network-independent: the network is always regtest.
  const cl = readCommandLine(
    NETWORK_OPTIONS,
    argv.filter((a) => a.startsWith('-')),
  );
  if (words.length > 1) throw new ConfigError(`one command at a time (got ${words.join(', ')})`, 'command line');
  const word = words[0];
  if (word !== undefined && !isCommand(word)) throw new ConfigError(`unknown command '${word}' (up, down or status)`, 'command line');
  if (cl.values.version) return { info: 'version', command: word ?? null };
  if (cl.values.help) return { info: 'help', command: word ?? null };
  if (word === undefined) throw new ConfigError('no command: up, down or status', 'command line');
  for (const [command, names] of Object.entries(COMMAND_OPTIONS)) {
    const misplaced = command === word ? undefined : names.find((name) => cl.isSet(name));
    if (misplaced) throw new ConfigError(`-${misplaced} goes with ${command}`, 'command line');
  }
  return { command: word, values: cl.values, datadir: resolvePath(cl.values.datadir) };
}
