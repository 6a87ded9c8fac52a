/**
 * Turns one of pino's JSON lines into a single human-readable line for the console:
 * `2025-01-02T03:04:05.678Z INFO  message {"height":12}`. debug.log keeps the JSON; this only
 * changes how stdout reads. The line arrives already redacted.
 */
export function formatConsoleLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const { time, level, msg, pid: _pid, ...fields } = entry;
  const head = `${String(time)} ${String(level).toUpperCase().padEnd(5)} ${msg === undefined ? '' : String(msg)}`;
  return Object.keys(fields).length === 0 ? `${head}\n` : `${head} ${JSON.stringify(fields)}\n`;
}
