/**
 * cs-cli, as bitcoin-cli: reads the options and cs.conf, turns the arguments into a JSON-RPC
 * request, sends it to csd and renders the reply. Returns what to print and the exit status
 * rather than printing, so that it runs the same in tests and in the program.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { CLI_OPTIONS } from '../config/cli-options.ts';
import { ConfigError, type ConfigErrorSource, formatOptionsHelp, infoRequest, loadSettings, type Settings } from '@cs/runtime/config';
import type { Env } from '@cs/runtime/datadir';
import { callRpc } from './call.ts';
import { credentialsReader, rpcEndpoint } from './connection.ts';
import { convertNamed, convertPositional } from './convert.ts';
import { CliError } from './errors.ts';
import { jsonArray, jsonObject, jsonString, member, writeJson, type JsonValue } from './json.ts';
import { netinfo } from './netinfo.ts';
import { renderReply, type Outcome } from './output.ts';
import { readStdin } from './stdin.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs RPC client version v${VERSION}\n`;

const USAGE =
  '\nUsage:  cs-cli [options] <command> [params]  Send command to csd\n' +
  'or:     cs-cli [options] -named <command> [name=value]...  Send command to csd (with named arguments)\n' +
  'or:     cs-cli [options] help                List commands\n' +
  'or:     cs-cli [options] help <command>      Get help for a command\n\n';

// bitcoin-cli's wording for each kind of configuration failure.
const CONFIG_PREFIX: Readonly<Record<ConfigErrorSource, string>> = {
  'command line': 'Error parsing command line arguments: ',
  'config file': 'Error reading configuration file: ',
  chain: 'Error: ',
  'data directory': 'Error: ',
};

const fail = (stderr: string): Outcome => ({ stdout: '', stderr, code: 1 });

export async function runCli(argv: readonly string[], env: Env, stdin: Readable): Promise<Outcome> {
  if (argv.length === 0) return { stdout: VERSION_LINE + USAGE + formatOptionsHelp(CLI_OPTIONS), stderr: 'Error: too few parameters\n', code: 1 };
  let settings: Settings<typeof CLI_OPTIONS>;
  try {
    const info = infoRequest(CLI_OPTIONS, argv);
    if (info === 'version') return { stdout: VERSION_LINE, stderr: '', code: 0 };
    if (info === 'help') return { stdout: VERSION_LINE + USAGE + formatOptionsHelp(CLI_OPTIONS), stderr: '', code: 0 };
    // Node options in the shared cs.conf are csd's business: ignored here, as bitcoin-cli does.
    settings = loadSettings(CLI_OPTIONS, argv, env, { tolerated: () => true });
  } catch (error) {
    if (error instanceof ConfigError) return fail(`${CONFIG_PREFIX[error.source]}${error.message}\n`);
    throw error;
  }
  if (settings.isSet('datadir') && !existsSync(settings.dataDir)) {
    return fail(`Error: Specified data directory "${settings.dataDir}" does not exist.\n`);
  }
  try {
    return await send(settings, stdin);
  } catch (error) {
    if (error instanceof CliError) return fail(`error: ${error.message}\n`);
    throw error;
  }
}

async function send(settings: Settings<typeof CLI_OPTIONS>, stdin: Readable): Promise<Outcome> {
  const { values } = settings;
  const fromStdin =
    values.stdin || values.stdinrpcpass ? await readStdin(stdin, { password: values.stdinrpcpass, args: values.stdin }) : { args: [] };
  if (values.stdinrpcpass && fromStdin.password === undefined) {
    throw new CliError('-stdinrpcpass specified but failed to read from standard input');
  }
  const [method, ...args] = [...settings.positional, ...fromStdin.args];
  const endpoint = rpcEndpoint(settings);
  const credentials = credentialsReader(settings, fromStdin.password);
  const call = (name: string, params: JsonValue): Promise<JsonValue> =>
    callRpc({
      endpoint,
      credentials,
      body: `${writeJson(
        jsonObject([
          ['jsonrpc', jsonString('1.0')],
          ['id', jsonString('cs-cli')],
          ['method', jsonString(name)],
          ['params', params],
        ]),
      )}\n`,
      timeoutSeconds: values.rpcclienttimeout,
      wait: values.rpcwait,
      waitTimeoutSeconds: values.rpcwaittimeout,
      confFile: settings.confFile,
    });
  const warned = (outcome: Outcome): Outcome => (endpoint.warning ? { ...outcome, stderr: endpoint.warning + outcome.stderr } : outcome);
  // With -generate the arguments are nblocks and maxtries; there is no command.
  if (values.generate) return warned(renderReply(await generate(method === undefined ? args : [method, ...args], call)));
  // With -netinfo the only argument is the level.
  if (values.netinfo) return warned(renderReply(await netinfo(method === undefined ? args : [method, ...args], call)));
  if (method === undefined) throw new CliError('too few parameters (need at least command)');
  const params = values.named ? convertNamed(method, args) : convertPositional(method, args);
  return warned(renderReply(await call(method, params)));
}

/**
 * bitcoin-cli -generate: a new address from the wallet, then generatetoaddress to it; the reply
 * is `{ "address", "blocks" }`, or the first error.
 */
async function generate(args: readonly string[], call: (name: string, params: JsonValue) => Promise<JsonValue>): Promise<JsonValue> {
  if (args.length > 2) throw new CliError('too many arguments (maximum 2 for nblocks and maxtries)');
  if (args[0] === '0') {
    throw new CliError('the first argument (number of blocks to generate, default: 1) must be an integer value greater than zero');
  }
  const fresh = await call('getnewaddress', jsonArray([]));
  const address = member(fresh, 'result');
  if (address?.type !== 'string') return fresh;
  const [nblocks = '1', ...maxtries] = args;
  const mined = await call('generatetoaddress', convertPositional('generatetoaddress', [nblocks, address.value, ...maxtries]));
  const blocks = member(mined, 'result');
  const error = member(mined, 'error');
  if (blocks === undefined || (error !== undefined && error.type !== 'null')) return mined;
  return jsonObject([
    [
      'result',
      jsonObject([
        ['address', address],
        ['blocks', blocks],
      ]),
    ],
    ['error', { type: 'null' }],
    ['id', jsonString('cs-cli')],
  ]);
}
