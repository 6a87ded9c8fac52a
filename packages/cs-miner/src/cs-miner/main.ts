/**
 * cs-miner: read the options, open the inference backends, mine until SIGINT/SIGTERM. -help and
 * -version are answered from the command line alone; a configuration problem prints one line and
 * exits 1.
 */
import { formatOptionsHelp, infoRequest, packageVersion } from '@cs/runtime/config';
import { ggufFileIdentity } from '@cs/runtime/file-hash';
import { buildConfig, readOptions, type MinerConfig } from '../config/config.ts';
import { MINER_OPTIONS } from '../config/options.ts';
import { Log } from '../miner/log.ts';
import { Miner } from '../miner/miner.ts';
import { openBackends } from '../opoi/models.ts';

const VERSION_LINE = `cs miner version v${packageVersion(new URL('../../package.json', import.meta.url))}\n`;

const USAGE = `
Usage: cs-miner -pool=stratum+tcp://host:port -user=<wallet_address>.<worker_name> [options]

The reference miner: Equihash on the CPU, OPoI inference (docs/miner.md).

`;

async function main(): Promise<void> {
  let config: MinerConfig;
  try {
    const argv = process.argv.slice(2);
    const info = infoRequest(MINER_OPTIONS, argv);
    if (info !== null) {
      process.stdout.write(info === 'version' ? VERSION_LINE : VERSION_LINE + USAGE + formatOptionsHelp(MINER_OPTIONS));
      return;
    }
    const values = readOptions(argv);
    const file = values['gguf-identity'];
    if (file) {
      const { sha256, size } = await ggufFileIdentity(file);
      process.stdout.write(`${JSON.stringify({ file, gguf_sha256: sha256, gguf_size: size })}\n`);
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
      batchSize: config.values['llama-batch'],
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
