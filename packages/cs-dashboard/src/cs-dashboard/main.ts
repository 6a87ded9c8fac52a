/**
 * cs-dashboard: `cs-dashboard -conf=<file.json>` or `cs-dashboard -rpcurl=... [-poolurl=...]
 * [-bridgeurl=... -bridgekey=...]` (docs/dashboard.md). Configuration errors print one line and
 * exit 1; SIGINT/SIGTERM close the server and the node feeds and exit 0.
 */
import { pino } from 'pino';
import { AskService } from '../ask/ask-service.ts';
import { ConfigError, HELP, loadConfig, publicView } from '../config/config.ts';
import { DashboardServer } from '../http/server.ts';
import { LiveHub } from '../live/live-hub.ts';
import { PoolHistory } from '../upstream/pool-history.ts';
import { Upstreams } from '../upstream/upstreams.ts';
import { bundleFrontEnd } from '../web/bundle.ts';

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2));
  if (config === 'help') {
    process.stdout.write(HELP);
    return;
  }
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
