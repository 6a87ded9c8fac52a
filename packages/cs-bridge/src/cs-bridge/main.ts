/**
 * cs-bridge: `cs-bridge [--env FILE]` runs the bridge (the setup wizard first when the file is
 * incomplete or no stake is active, and a terminal is there to answer it); `cs-bridge setup` runs
 * only the wizard; `cs-bridge ask ...` is the requester's whole flow. Errors print one line, exit 1.
 */
import { resolve } from 'node:path';
import { pino } from 'pino';
import { runAsk } from '../ask/ask.ts';
import { Bridge, StartError, lockBridge, rpcClientFor } from '../bridge.ts';
import { ConfigError, mergedValues, missingVariables, parseConfig } from '../config/env.ts';
import { NodeCheckError, readStake } from '../node/node-check.ts';
import { runWizard } from '../setup/wizard.ts';

const HELP = `Usage:
  cs-bridge [--env FILE]            run the bridge (default env file: ./.env)
  cs-bridge setup [--env FILE]      the setup wizard only
  cs-bridge ask --model NAME --max-tokens N --payment COINS [--env FILE] [--bridge-url URL]
                [--requester ADDRESS] [--fee-per-token COINS] [--request-id UUID] "PROMPT"
                                    submit a request, hand over the prompt, wait for the answer
Variables and their defaults: docs/bridge.md and .env.example.
`;

function takeEnvFlag(args: string[]): string {
  const i = args.findIndex((a) => a === '--env' || a.startsWith('--env='));
  if (i < 0) return resolve('.env');
  const value = args[i].includes('=') ? args[i].slice(6) : args[i + 1];
  args.splice(i, args[i].includes('=') ? 1 : 2);
  if (!value) throw new ConfigError('--env needs a file name');
  return resolve(value);
}

async function run(envFile: string): Promise<void> {
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  let values = mergedValues(envFile);
  const missing = missingVariables(values);
  if (missing.length > 0) {
    if (!interactive) {
      throw new ConfigError(`${envFile} lacks ${missing.join(', ')}: run "cs-bridge setup" in a terminal, or write it from .env.example`);
    }
    if (!(await runWizard(envFile, { mode: 'full' }))) return;
    values = mergedValues(envFile);
  }
  let config = parseConfig(envFile, values);
  const locks = await lockBridge(config);
  const rpc = rpcClientFor(config);
  try {
    const stake = await readStake(rpc, config.opoiAddress).catch(() => null);
    if (stake?.kind === 'none' && !config.stakeUtxo) {
      if (!interactive) {
        throw new ConfigError(
          `${config.opoiAddress} has no stake: run "cs-bridge setup" to pick the collateral, or set OPOI_STAKE_UTXO=<txid>:<vout>`,
        );
      }
      if (!(await runWizard(envFile, { mode: 'stake' }))) return;
      config = parseConfig(envFile, mergedValues(envFile));
    }
  } finally {
    rpc.close();
  }
  const log = pino({ level: config.logLevel, base: { pid: process.pid } });
  let bridge: Bridge;
  try {
    bridge = await Bridge.start(config, locks, log);
  } catch (e) {
    for (const l of locks) await l.release();
    throw e;
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    bridge.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  try {
    const envFile = takeEnvFlag(args);
    if (args[0] === 'setup') {
      await runWizard(envFile, { mode: 'full' });
      return;
    }
    if (args[0] === 'ask') {
      process.exitCode = await runAsk(envFile, args.slice(1));
      return;
    }
    if (args.length > 0) throw new ConfigError(`unknown argument ${args[0]} (see cs-bridge --help)`);
    await run(envFile);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof NodeCheckError || e instanceof StartError) {
      process.stderr.write(`cs-bridge: ${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`cs-bridge: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  }
}

await main();
