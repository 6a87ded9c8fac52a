/** Options and names that every program's table shares. */
import { flag } from './spec.ts';

export const NETWORK_NAMES = ['main', 'test', 'regtest'] as const;

/** -help (-h, -?), as every program of the repository takes it. */
export const HELP_OPTION = flag({
  category: 'general',
  description: 'Print this help message and exit (also -h or -?).',
  default: false,
  placement: 'command line',
  aliases: ['h', '?'],
});

/** -version, which every program answers before reading any file. */
export const VERSION_OPTION = flag({ category: 'general', description: 'Print version and exit.', default: false, placement: 'command line' });

/** -help and -version, which every program answers alike, before reading any file. */
export const INFO_OPTIONS = {
  help: HELP_OPTION,
  version: VERSION_OPTION,
};

/** Log levels from the most to the least severe, as -loglevel takes them. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
