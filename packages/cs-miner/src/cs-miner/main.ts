/**
 * cs-miner: read the options, open the inference backends, mine until SIGINT/SIGTERM.
 * A configuration problem prints one line and exits 1.
 */
import { formatOptionsHelp } from '@cs/runtime/config';
import { buildConfig, readOptions, type MinerConfig } from '../config/config.ts';
import { MINER_OPTIONS } from '../config/options.ts';
import { Log } from '../miner/log.ts';
import { Miner, USER_AGENT } from '../miner/miner.ts';
import { openBackends } from '../opoi/models.ts';

const USAGE = `${USER_AGENT}: reference miner (docs/miner.md)

Usage: cs-miner -pool=stratum+tcp://host:port -user=<wallet_address>.<worker_name> [options]

`;

async function main(): Promise<void> {
  let config: MinerConfig;
  try {
    const values = readOptions(process.argv.slice(2));
    if (values.help) {
      process.stdout.write(USAGE + formatOptionsHelp(MINER_OPTIONS));
      return;
    }
    config = buildConfig(values);
  } catch (e) {
    process.stderr.write(`cs-miner: ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const log = new Log(config.values.json, config.values.loglevel);
  let miner: Miner;
  try {
    const backends = await openBackends(config.models, {
      threads: config.llamaThreads,
      contextSize: config.values['llama-context'],
      gpu: config.values['llama-gpu'],
    });
    miner = new Miner(config, backends, log);
  } catch (e) {
    process.stderr.write(`cs-miner: ${(e as Error).message}\n`);
    process.exit(1);
  }
  miner.start();
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    miner.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
