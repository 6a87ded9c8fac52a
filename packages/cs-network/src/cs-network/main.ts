/**
 * cs-network: `up` runs a whole local network in the foreground, `down` stops it from another
 * terminal (`-purge` deletes it), `status` shows it (docs/cs-network.md). -help and -version, of
 * the program and of each command, are answered from the command line alone. An error prints one
 * line and exits 1.
 */
import { formatOptionsHelp, packageVersion } from '@cs/runtime/config';
import { down } from '../commands/down.ts';
import { status } from '../commands/status.ts';
import { up } from '../commands/up.ts';
import { type Command, commandOptions, NETWORK_OPTIONS, readInvocation } from '../config/options.ts';

const VERSION_LINE = `cs local network version v${packageVersion(new URL('../../package.json', import.meta.url))}\n`;

const USAGE = `
Usage:
  cs-network up [options]        start it (or resume it) in the foreground; Ctrl-C stops it
  cs-network down [-purge]       stop it from another terminal; -purge also deletes it
  cs-network status              what runs, the endpoints, heights, pool and bridge state
"cs-network <command> -help" lists a command's options (docs/cs-network.md).

`;

const COMMAND_USAGE: Readonly<Record<Command, string>> = {
  up: `
Usage: cs-network up [options]

Starts the network in the foreground, or resumes the one in the data directory; Ctrl-C stops it.

`,
  down: `
Usage: cs-network down [-datadir=<dir>] [-purge]

Stops the network that runs in another terminal; -purge then deletes its data directory.

`,
  status: `
Usage: cs-network status [-datadir=<dir>]

What runs, the endpoints, the nodes' heights, the pool's and the bridge's state.

`,
};

function help(command: Command | null): string {
  return command === null ? USAGE + formatOptionsHelp(NETWORK_OPTIONS) : COMMAND_USAGE[command] + formatOptionsHelp(commandOptions(command));
}

async function main(): Promise<number> {
  try {
    const inv = readInvocation(process.argv.slice(2));
    if ('info' in inv) {
      process.stdout.write(inv.info === 'version' ? VERSION_LINE : VERSION_LINE + help(inv.command));
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
