/**
 * cs-network: `up` runs a whole local network in the foreground, `down` stops it from another
 * terminal (`-purge` deletes it), `status` shows it (docs/cs-network.md). An error prints one
 * line and exits 1.
 */
import { formatOptionsHelp } from '@cs/runtime/config';
import { down } from '../commands/down.ts';
import { status } from '../commands/status.ts';
import { up } from '../commands/up.ts';
import { NETWORK_OPTIONS, readInvocation } from '../config/options.ts';

const USAGE = `cs-network: a local regtest network in one command (docs/cs-network.md)

Usage:
  cs-network up [options]        start it (or resume it) in the foreground; Ctrl-C stops it
  cs-network down [-purge]       stop it from another terminal; -purge also deletes it
  cs-network status              what runs, the endpoints, heights, pool and bridge state

`;

async function main(): Promise<number> {
  try {
    const inv = readInvocation(process.argv.slice(2));
    if (inv.values.help) {
      process.stdout.write(USAGE + formatOptionsHelp(NETWORK_OPTIONS));
      return 0;
    }
    if (inv.command === 'up') return await up(inv);
    if (inv.command === 'down') return await down(inv);
    return await status(inv);
  } catch (e) {
    process.stderr.write(`cs-network: ${(e as Error).message}\n`);
    return 1;
  }
}

process.exit(await main());
