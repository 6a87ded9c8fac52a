/**
 * cs-bridge: `cs-bridge [-env=<file>]` runs the bridge (the setup wizard first when the file is
 * incomplete or no stake is active, and a terminal is there to answer it); `cs-bridge setup` runs
 * only the wizard; `cs-bridge ask ...` is the requester's whole flow, `challenge` and `manifest` its
 * other chain steps. -help and -version, of the
 * program and of each command, are answered from the command line alone. Errors print one line,
 * exit 1.
 */
import { ConfigError as BaseConfigError, formatOptionsHelp, packageVersion } from '@cs/runtime/config';
import { pino } from 'pino';
import { runAsk } from '../ask/ask.ts';
import { Bridge, StartError, lockBridge, rpcClientFor } from '../bridge.ts';
import { ConfigError, mergedValues, missingVariables, parseConfig } from '../config/env.ts';
import { ASK_OPTIONS, BRIDGE_OPTIONS, type Command, readInvocation } from '../config/options.ts';
import { CHALLENGE_OPTIONS, MANIFEST_OPTIONS } from '../config/requester-options.ts';
import { NodeCheckError, readStake } from '../node/node-check.ts';
import { runChallenge } from '../requester/challenge.ts';
import { runManifest } from '../requester/manifest.ts';
import { runWizard } from '../setup/wizard.ts';

const VERSION_LINE = `cs OPoI bridge version v${packageVersion(new URL('../../package.json', import.meta.url))}\n`;

const HELP: Readonly<Record<Command, string>> = {
  run: `
Usage:
  cs-bridge [-env=<file>]          run the bridge (the setup wizard first when the file is incomplete)
  cs-bridge setup [-env=<file>]    the setup wizard only
  cs-bridge ask -model=<name> -maxtokens=<n> -payment=<coins> [options] <prompt>
                                   submit a request, hand over the prompt, wait for the answer
                                   (-verifiable: -model names a manifest; follows publish and audits)
  cs-bridge challenge [options] <request_id>
                                   challenge an answer under audit (a bond for a second round)
  cs-bridge manifest [options] <gguf file>
                                   register a model manifest for a GGUF file
The variables and their defaults: docs/bridge.md and .env.example. "cs-bridge <command> -help"
lists a command's options.

${formatOptionsHelp(BRIDGE_OPTIONS)}`,
  setup: `
Usage: cs-bridge setup [-env=<file>]

The setup wizard alone: writes the environment file and picks the stake (docs/bridge.md, "Setup").

${formatOptionsHelp(BRIDGE_OPTIONS)}`,
  ask: `
Usage: cs-bridge ask -model=<name> -maxtokens=<n> -payment=<coins> [options] <prompt>

Sends the REQUEST from the node's wallet, hands the prompt to the bridge once it confirms and waits
for the answer (docs/bridge.md, "Asking"). The options come before the prompt.

${formatOptionsHelp(ASK_OPTIONS)}`,
  challenge: `
Usage: cs-bridge challenge [options] <request_id>

Sends a CHALLENGE of a VERIFIABLE answer under audit from the node's wallet: the bond buys a second
round of audit_quorum + 1 auditors and comes back unless the answer is found valid (docs/bridge.md,
"Challenging"). Follow the request with getopoirequest or the dashboard.

${formatOptionsHelp(CHALLENGE_OPTIONS)}`,
  manifest: `
Usage: cs-bridge manifest [options] <gguf file>

Registers a model manifest from the node's wallet: the file's SHA-256 and size, the tokenization
rules and the tolerance; the network's manifest fee is burned (docs/bridge.md, "Registering a
manifest").

${formatOptionsHelp(MANIFEST_OPTIONS)}`,
};

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
  try {
    const inv = readInvocation(process.argv.slice(2));
    if (inv.info !== null) {
      process.stdout.write(inv.info === 'version' ? VERSION_LINE : VERSION_LINE + HELP[inv.command]);
      return;
    }
    if (inv.command === 'setup') {
      await runWizard(inv.envFile, { mode: 'full' });
      return;
    }
    if (inv.command === 'ask') {
      process.exitCode = await runAsk(inv.envFile, inv.ask);
      return;
    }
    if (inv.command === 'challenge') {
      process.exitCode = await runChallenge(inv.envFile, inv.challenge);
      return;
    }
    if (inv.command === 'manifest') {
      process.exitCode = await runManifest(inv.envFile, inv.manifest);
      return;
    }
    await run(inv.envFile);
  } catch (e) {
    if (e instanceof BaseConfigError || e instanceof NodeCheckError || e instanceof StartError) {
      process.stderr.write(`cs-bridge: ${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`cs-bridge: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  }
}

await main();
