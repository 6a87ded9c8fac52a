/**
 * cs-pool: read the options, start the pool, stop it cleanly on SIGINT/SIGTERM (miners are told
 * to reconnect). -help and -version are answered from the command line alone; a configuration
 * error prints one line and exits 1.
 */
import { ConfigError, formatOptionsHelp, infoRequest, packageVersion } from '@cs/runtime/config';
import { pino } from 'pino';
import { type Options, POOL_OPTIONS, readOptions } from '../node/config.ts';
import { Pool } from '../node/pool.ts';

const VERSION_LINE = `cs stratum pool version v${packageVersion(new URL('../../package.json', import.meta.url))}\n`;

const USAGE = `
Usage: cs-pool [options]

A ZIP 301 stratum pool for Equihash/ZelHash miners on top of csd (docs/pool.md).

`;

async function main(): Promise<void> {
  let options: Options;
  let warnings: readonly string[];
  try {
    const argv = process.argv.slice(2);
    const info = infoRequest(POOL_OPTIONS, argv);
    if (info !== null) {
      process.stdout.write(info === 'version' ? VERSION_LINE : VERSION_LINE + USAGE + formatOptionsHelp(POOL_OPTIONS));
      return;
    }
    ({ options, warnings } = readOptions(argv));
  } catch (e) {
    process.stderr.write(`cs-pool: ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const log = pino({ level: options.values.loglevel, base: { pid: process.pid } });
  for (const warning of warnings) log.warn(warning);
  let pool: Pool;
  try {
    pool = await Pool.start(options, log);
  } catch (e) {
    if (e instanceof ConfigError) process.stderr.write(`cs-pool: ${e.message}\n`);
    else log.fatal({ err: (e as Error).message }, 'cs-pool could not start');
    process.exit(1);
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    pool.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
