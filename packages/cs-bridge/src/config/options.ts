/**
 * cs-bridge's command line, in the option vocabulary every program shares (@cs/runtime/config):
 * `cs-bridge [options] [setup | ask [options] <prompt>]`, `-name=value` as csd reads its own. The
 * bridge's own settings are the environment file's variables (config/env.ts); the command line
 * names that file and carries `ask`'s request. docs/bridge.md lists both.
 */
import { resolve } from 'node:path';
import { parseAmount } from '@cs/runtime/amount';
import { amount, INFO_OPTIONS, integer, readCommandLine, text, type ValuesOf } from '@cs/runtime/config';
import { ConfigError } from './env.ts';

const nonEmpty = (what: string) => (value: string) => (value === '' ? what : null);

const ENV = text({
  category: 'general',
  arg: '<file>',
  description: 'The environment file with the variables (relative to the current directory).',
  default: '.env',
  check: nonEmpty('a file name, as in -env=<file>'),
});

/** `cs-bridge` and `cs-bridge setup`. */
export const BRIDGE_OPTIONS = { ...INFO_OPTIONS, env: ENV };

export const ASK_OPTIONS = {
  ...INFO_OPTIONS,
  env: ENV,
  model: text({
    category: 'request',
    arg: '<name>',
    description: 'Model to ask (required).',
    default: null,
    check: nonEmpty('a model name, as in -model=<name>'),
  }),
  maxtokens: integer({ category: 'request', arg: '<n>', description: 'Most tokens the answer may have (required).', default: null, min: 1 }),
  payment: text({
    category: 'request',
    arg: '<coins>',
    description: 'Payment escrowed for the answer, in coins (required).',
    default: null,
    check: (v) => (parseAmount(v) === null ? 'an amount in coins, at most 8 decimals' : null),
  }),
  feepertoken: amount({
    category: 'request',
    arg: '<coins>',
    description: 'Fee per answer token, in coins, escrowed for -maxtokens on top of the payment.',
    default: '0',
  }),
  requester: text({
    category: 'request',
    arg: '<address>',
    description: "Wallet address that pays the escrow (default: one of the node wallet's with enough confirmed coins).",
    default: null,
  }),
  requestid: text({
    category: 'request',
    arg: '<uuid>',
    description: 'Resume this request (printed by an interrupted ask) instead of sending a new one.',
    default: null,
    check: nonEmpty('a request id, as in -requestid=<uuid>'),
  }),
  pollms: integer({ category: 'request', arg: '<ms>', description: 'Milliseconds between polls of the bridge and the node.', default: 1000, min: 1 }),

  bridgeurl: text({
    category: 'connection',
    arg: '<url>',
    description: "The bridge's HTTP API (default: http:// and the env file's API_LISTEN_ADDR).",
    default: null,
  }),
  apikey: text({
    category: 'connection',
    arg: '<key>',
    description: "The bridge API's requester key (default: the env file's OPOI_REQUESTER_API_KEY).",
    default: null,
    sensitive: true,
  }),
  rpcurl: text({
    category: 'connection',
    arg: '<url>',
    description: "The node's JSON-RPC URL (default: the env file's CSD_RPC_URL).",
    default: null,
  }),
  rpcuser: text({ category: 'connection', arg: '<user>', description: "The node's RPC user (default: the env file's CSD_RPC_USER).", default: null }),
  rpcpassword: text({
    category: 'connection',
    arg: '<pw>',
    description: "The node's RPC password (default: the env file's CSD_RPC_PASS).",
    default: null,
    sensitive: true,
  }),
};

export type AskValues = ValuesOf<typeof ASK_OPTIONS>;

/** `ask`'s options once the required ones are known to be there, and the prompt. */
export type AskRequest = Omit<AskValues, 'model' | 'maxtokens' | 'payment'> & {
  readonly model: string;
  readonly maxtokens: number;
  readonly payment: string;
  readonly prompt: string;
};

export const COMMANDS = ['setup', 'ask'] as const;
export type Command = 'run' | (typeof COMMANDS)[number];

const isCommand = (word: string): word is (typeof COMMANDS)[number] => (COMMANDS as readonly string[]).includes(word);

export type Invocation =
  /** -help or -version, of the program ('run') or of a command. */
  | { readonly info: 'help' | 'version'; readonly command: Command }
  | { readonly info: null; readonly command: 'run' | 'setup'; readonly envFile: string }
  | { readonly info: null; readonly command: 'ask'; readonly envFile: string; readonly ask: AskRequest };

/**
 * `--env FILE`, the spelling before -env=FILE, in the service units written for it: read as
 * -env=FILE. No other option takes its value as a second word.
 */
function joinEnvWord(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--env' && next !== undefined && !next.startsWith('-')) out.push(`-env=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

/**
 * Options before the command are the program's, options after it the command's (-env in either
 * place); a ConfigError names what is wrong. Nothing is read: -help and -version need no file.
 */
export function readInvocation(argv: readonly string[]): Invocation {
  const top = readCommandLine(BRIDGE_OPTIONS, joinEnvWord(argv));
  const [word, ...rest] = top.positional;
  if (top.values.version) return { info: 'version', command: 'run' };
  if (top.values.help) return { info: 'help', command: 'run' };
  if (word !== undefined && !isCommand(word)) throw new ConfigError(`unknown command '${word}' (setup or ask; cs-bridge -help)`);
  const command: Command = word ?? 'run';
  const sub = command === 'ask' ? readCommandLine(ASK_OPTIONS, rest) : readCommandLine(BRIDGE_OPTIONS, rest);
  if (sub.values.version) return { info: 'version', command };
  if (sub.values.help) return { info: 'help', command };
  const envFile = resolve(sub.isSet('env') ? sub.values.env : top.values.env);
  if (command !== 'ask') {
    if (sub.positional.length > 0) throw new ConfigError(`unexpected argument '${sub.positional[0]}' (options are -name=value; cs-bridge -help)`);
    return { info: null, command, envFile };
  }
  const ask = sub.values as AskValues;
  const prompt = sub.positional.join(' ');
  if (ask.model === null || ask.maxtokens === null || ask.payment === null || prompt === '')
    throw new ConfigError('ask needs -model=<name>, -maxtokens=<n>, -payment=<coins> and the prompt (cs-bridge ask -help)');
  return { info: null, command, envFile, ask: { ...ask, model: ask.model, maxtokens: ask.maxtokens, payment: ask.payment, prompt } };
}
