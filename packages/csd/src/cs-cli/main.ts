/** The cs-cli program (bin/cs-cli.js): runs the client against this process's argv and stdio. */
import { runCli } from './cli.ts';

const outcome = await runCli(process.argv.slice(2), process.env, process.stdin);
process.stdout.write(outcome.stdout);
process.stderr.write(outcome.stderr);
// Like bitcoin-cli, the absolute RPC error code; the shell sees it modulo 256.
process.exitCode = outcome.code;
