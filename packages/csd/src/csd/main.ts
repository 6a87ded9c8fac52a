/** The csd program (bin/csd.js): configuration, data directory lock, logging, then the node. */
import { readFileSync } from 'node:fs';
import { formatOptionsHelp, infoRequest } from '@cs/runtime/config';
import { loadConfig } from '../config/node-config.ts';
import { CLI_OPTIONS } from '../config/cli-options.ts';
import { NODE_OPTIONS } from '../config/options.ts';
import { openDataDir } from '@cs/runtime/datadir';
import { openLogger, redactPaths } from '@cs/runtime/log';
import type { Node } from '../node/node.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
let info: 'help' | 'version' | null;
try {
  info = infoRequest(NODE_OPTIONS, argv);
} catch (e) {
  fail((e as Error).message);
}
if (info === 'version') {
  process.stdout.write(`cs node daemon version v${VERSION}\n`);
  process.exit(0);
}
if (info === 'help') {
  process.stdout.write(`cs node daemon version v${VERSION}\n\nUsage: csd [options]\n\n${formatOptionsHelp(NODE_OPTIONS)}`);
  process.exit(0);
}

// The node's modules (most of csd) load while the configuration is read and the directory locked;
// -help and -version above answer without them.
const nodeModule = import('../node/node.ts');

// As bitcoind (without -sysperms): everything csd creates is owner-only. The wallet's keys share
// the chain's LMDB files, whose mode LMDB itself does not let us choose.
process.umask(0o077);

let config;
let lock;
try {
  config = loadConfig(argv);
  // A second csd stops here, before touching anything the first one uses.
  lock = await openDataDir(config.paths);
} catch (e) {
  fail((e as Error).message);
}

const {
  logger,
  reopen: reopenLog,
  close: closeLog,
} = openLogger({
  file: config.paths.debugLog,
  level: config.options.loglevel,
  console: config.options.printtoconsole,
  redact: redactPaths([NODE_OPTIONS, CLI_OPTIONS]),
});
// A closed stderr (a pipe whose reader went away) must not turn the next error message into a crash.
process.stderr.on('error', () => undefined);
for (const warning of config.warnings) logger.warn(warning);
logger.info({ version: VERSION, network: config.network.name, datadir: config.paths.networkDir }, 'csd starting');

let node: Node | null = null;
/** Aborted by a shutdown request that arrives while the node is still starting (-reindex included). */
const startup = new AbortController();
let exiting = false;

async function shutdown(code = 0): Promise<void> {
  if (exiting) return;
  exiting = true;
  try {
    await node?.stop();
  } catch (err) {
    logger.error({ err }, 'error during shutdown');
    code = 1;
  }
  await lock!.release();
  closeLog();
  process.exit(code);
}

/** SIGINT, SIGTERM and `stop`: while starting, Node.start winds down what it started, then we exit. */
function requestShutdown(): void {
  if (node === null && !exiting) startup.abort();
  else void shutdown();
}

process.on('SIGINT', requestShutdown);
process.on('SIGTERM', requestShutdown);
// As bitcoind: SIGHUP reopens debug.log, for logrotate.
process.on('SIGHUP', () => {
  reopenLog();
  logger.info('debug.log reopened (SIGHUP)');
});
process.on('uncaughtException', (err) => {
  // Storage is transactional, so dying here loses nothing committed; say why, then go.
  logger.fatal({ err }, 'uncaught exception');
  void shutdown(1);
});

const csdNode = await nodeModule;
try {
  node = await csdNode.Node.start(config, logger, requestShutdown, startup.signal);
  // Asked after the last point where starting could stop: stop now.
  if (startup.signal.aborted) await shutdown();
} catch (e) {
  if (e instanceof csdNode.StartupInterrupted) {
    logger.info('startup interrupted by a shutdown request');
    await shutdown(0);
  } else {
    logger.fatal({ err: e }, 'startup failed');
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    await shutdown(1);
  }
}
