/**
 * cs-dashboard: `cs-dashboard -conf=<file.json>` or `cs-dashboard -rpcurl=... [-poolurl=...]
 * [-bridgeurl=... -bridgekey=...]` (docs/dashboard.md). -help and -version are answered from the
 * command line alone; configuration errors print one line and exit 1; SIGINT/SIGTERM close the
 * server and the node feeds and exit 0.
 */
import { ConfigError, formatOptionsHelp, infoRequest, packageVersion } from '@cs/runtime/config';
import { pino } from 'pino';
import { AskService } from '../ask/ask-service.ts';
import { DASHBOARD_OPTIONS, USAGE, loadConfig, publicView } from '../config/config.ts';
import { DashboardServer } from '../http/server.ts';
import { LiveHub } from '../live/live-hub.ts';
import { PoolHistory } from '../upstream/pool-history.ts';
import { Upstreams } from '../upstream/upstreams.ts';
import { bundleFrontEnd } from '../web/bundle.ts';

const VERSION_LINE = `cs dashboard version v${packageVersion(new URL('../../package.json', import.meta.url))}\n`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const info = infoRequest(DASHBOARD_OPTIONS, argv);
  if (info !== null) {
    process.stdout.write(info === 'version' ? VERSION_LINE : `${VERSION_LINE}\n${USAGE}\n${formatOptionsHelp(DASHBOARD_OPTIONS)}`);
    return;
  }
  const config = loadConfig(argv);
  const log = pino({ level: config.logLevel, base: { pid: process.pid } });
  const assets = await bundleFrontEnd();
  const upstreams = new Upstreams(config);
  const history = new PoolHistory(upstreams);
  const live = new LiveHub(config.nodes, log);
  const asker = new AskService(upstreams, log);
  const server = new DashboardServer({ config, upstreams, live, history, asker, assets, log });
  await server.listen();
  live.start();
  history.start();
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}/`;
  log.info({ url, ...publicView(config) }, 'cs-dashboard listening');

  const stop = async (signal: string) => {
    log.info({ signal }, 'stopping');
    asker.stop();
    history.stop();
    await live.close();
    await server.close();
    upstreams.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  if (e instanceof ConfigError) {
    process.stderr.write(`cs-dashboard: ${e.message}\n`);
    process.exit(1);
  }
  if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`cs-dashboard: the listen address is in use: ${(e as Error).message}\n`);
    process.exit(1);
  }
  throw e;
});
