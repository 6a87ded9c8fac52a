/**
 * A daemon's logger: pino writing JSON lines to `<network dir>/debug.log` and, with
 * -printtoconsole, one readable line per entry to stdout. Secrets are redacted by key
 * (log/redact.ts).
 */
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/common-options.ts';
import { formatConsoleLine } from './console.ts';
import { REDACTED } from './redact.ts';

export interface LoggerOptions {
  /** debug.log; appended to, created owner-only. */
  readonly file: string;
  readonly level: LogLevel;
  /** Also write readable lines to `stdout` (-printtoconsole). */
  readonly console: boolean;
  /** Where console lines go; process.stdout unless a test captures them. */
  readonly stdout?: { write(text: string): unknown };
  /** Keys whose values are replaced before a line is written (redactPaths). */
  readonly redact: readonly string[];
}

export interface NodeLogger {
  readonly logger: Logger;
  /** Opens debug.log again by name (SIGHUP, after logrotate moved the file away). */
  reopen(): void;
  /** Closes debug.log; the logger must not be used afterwards. */
  close(): void;
}

/**
 * Opens debug.log and builds the logger. Writes are synchronous, like Core's debug.log: the last
 * lines before a crash are the ones that matter, and a buffer would lose them.
 */
export function openLogger(options: LoggerOptions): NodeLogger {
  const openFile = () => {
    const opened = openSync(options.file, 'a', 0o600);
    // The mode above only applies when the file is created; a debug.log left readable by others
    // (copied in, or from an older install) is tightened, since it may name addresses and peers.
    fchmodSync(opened, 0o600);
    return opened;
  };
  let fd = openFile();
  const file: DestinationStream = { write: (line) => void writeSync(fd, line) };
  const streams = [{ level: 'trace' as const, stream: file }];
  if (options.console) {
    const out = options.stdout ?? process.stdout;
    // A console that went away (a closed pipe: `csd | head`) is dropped, as Core ignores failed
    // console writes; the failure must not come back as an error to log, which would fail again.
    let consoleOpen = true;
    if (out === process.stdout) process.stdout.on('error', () => (consoleOpen = false));
    streams.push({
      level: 'trace',
      stream: {
        write: (line) => {
          if (consoleOpen) out.write(formatConsoleLine(line));
        },
      },
    });
  }
  const logger = pino(
    {
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names rather than numbers: debug.log is read by people with grep as much as by tools.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...options.redact], censor: REDACTED },
    },
    pino.multistream(streams),
  );
  return {
    logger,
    reopen: () => {
      const previous = fd;
      fd = openFile();
      closeSync(previous);
    },
    close: () => closeSync(fd),
  };
}
