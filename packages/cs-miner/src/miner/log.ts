/**
 * The miner's log on stdout: one line per event, text for people or JSON objects for machines
 * (-json). Status lines are events too ("status"), with their numbers as fields.
 */

export type Level = 'error' | 'warn' | 'info' | 'debug';
const RANK: Readonly<Record<Level, number>> = { error: 0, warn: 1, info: 2, debug: 3 };

export class Log {
  constructor(
    private readonly json: boolean,
    private readonly level: Level,
    private readonly write: (line: string) => void = (line) => process.stdout.write(line),
  ) {}

  readonly log = (level: Level, msg: string, fields: Record<string, unknown> = {}): void => {
    if (RANK[level] > RANK[this.level]) return;
    const time = new Date().toISOString();
    if (this.json) {
      this.write(`${JSON.stringify({ time, level, msg, ...fields })}\n`);
      return;
    }
    const rest = Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
      .join(' ');
    this.write(`${time} ${level.padEnd(5)} ${msg}${rest ? ` ${rest}` : ''}\n`);
  };

  /** The status line: a compact sentence in text mode, every number as a field in JSON mode. */
  status(fields: Record<string, number | string>, text: string): void {
    if (this.json) this.log('info', 'status', fields);
    else this.write(`${new Date().toISOString()} ${text}\n`);
  }
}
