/**
 * cs-pool: parse options, start the pool, stop it cleanly on SIGINT/SIGTERM (miners are told to
 * reconnect). Configuration errors print one line and exit 1.
 */
import { pino } from 'pino';
import { ConfigError, Options, helpText, parseArgs } from '../node/config.ts';
import { Pool } from '../node/pool.ts';

async function main(): Promise<void> {
  let options: Options;
  try {
    const raw = parseArgs(process.argv.slice(2));
    if (raw.has('help') || raw.has('h')) {
      process.stdout.write(helpText());
      return;
    }
    options = new Options(raw);
  } catch (e) {
    process.stderr.write(`cs-pool: ${(e as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const log = pino({ level: options.str('loglevel'), base: { pid: process.pid } });
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
