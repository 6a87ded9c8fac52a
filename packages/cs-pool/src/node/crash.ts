/** Fault injection for the kill -9 tests (docs/pool.md): at the named point, the process kills itself. */
const CRASH_AT = process.env.CS_POOL_CRASH_AT ?? '';

export function crashArmed(name: string): boolean {
  return CRASH_AT === name;
}

export function crashPoint(name: string): void {
  if (crashArmed(name)) process.kill(process.pid, 'SIGKILL');
}
