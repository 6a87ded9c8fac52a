/**
 * cs-bridge's command line, in the option vocabulary every program shares (@cs/runtime/config):
 * `cs-bridge [options] [setup | ask [options] <prompt>]`, `-name=value` as csd reads its own. The
 * bridge's own settings are the environment file's variables (config/env.ts); the command line
 * names that file and carries `ask`'s request. docs/bridge.md lists both.
 */
import { resolve } from 'node:path';
import { parseAmount } from '@cs/runtime/amount';
import { amount, flag, INFO_OPTIONS, integer, readCommandLine, text, type ValuesOf } from '@cs/runtime/config';
import {
  CHALLENGE_OPTIONS,
  type ChallengeRequest,
  type ChallengeValues,
  MANIFEST_OPTIONS,
  type ManifestRequest,
  type ManifestValues,
  readChallenge,
  readManifest,
} from './requester-options.ts';
import { ConfigError } from './env.ts';
import { ENV, NODE_OPTIONS, nonEmpty } from './option-parts.ts';

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
  verifiable: flag({
    category: 'request',
    description: 'A VERIFIABLE request: -model names a model manifest; the answer is published, audited and paid only if found valid.',
    default: false,
  }),
  quorum: integer({ category: 'request', arg: '<n>', description: 'Auditors drawn for a VERIFIABLE answer (1 to 16).', default: 1, min: 1, max: 16 }),
  auditfee: amount({
    category: 'request',
    arg: '<coins>',
    description: "Fee escrowed for each auditor of a VERIFIABLE answer, in coins (at least the network's 0.0001).",
    default: '0.0001',
  }),

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
  ...NODE_OPTIONS,
};

export type AskValues = ValuesOf<typeof ASK_OPTIONS>;

/** `ask`'s options once the required ones are known to be there, and the prompt. */
export type AskRequest = Omit<AskValues, 'model' | 'maxtokens' | 'payment'> & {
  readonly model: string;
  readonly maxtokens: number;
  readonly payment: string;
  readonly prompt: string;
};

export const COMMANDS = ['setup', 'ask', 'challenge', 'manifest'] as const;
export type Command = 'run' | (typeof COMMANDS)[number];

const isCommand = (word: string): word is (typeof COMMANDS)[number] => (COMMANDS as readonly string[]).includes(word);

export type Invocation =
  /** -help or -version, of the program ('run') or of a command. */
  | { readonly info: 'help' | 'version'; readonly command: Command }
  | { readonly info: null; readonly command: 'run' | 'setup'; readonly envFile: string }
  | { readonly info: null; readonly command: 'ask'; readonly envFile: string; readonly ask: AskRequest }
  | { readonly info: null; readonly command: 'challenge'; readonly envFile: string; readonly challenge: ChallengeRequest }
  | { readonly info: null; readonly command: 'manifest'; readonly envFile: string; readonly manifest: ManifestRequest };

/** Each command's option table. */
const TABLES = { run: BRIDGE_OPTIONS, setup: BRIDGE_OPTIONS, ask: ASK_OPTIONS, challenge: CHALLENGE_OPTIONS, manifest: MANIFEST_OPTIONS } as const;

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
  if (word !== undefined && !isCommand(word)) throw new ConfigError(`unknown command '${word}' (${COMMANDS.join(', ')}; cs-bridge -help)`);
  const command: Command = word ?? 'run';
  const sub = readCommandLine(TABLES[command] as typeof BRIDGE_OPTIONS, rest);
  if (sub.values.version) return { info: 'version', command };
  if (sub.values.help) return { info: 'help', command };
  const envFile = resolve(sub.isSet('env') ? sub.values.env : top.values.env);
  if (command === 'challenge') return { info: null, command, envFile, challenge: readChallenge(sub.values as ChallengeValues, sub.positional) };
  if (command === 'manifest') return { info: null, command, envFile, manifest: readManifest(sub.values as ManifestValues, sub.positional) };
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
