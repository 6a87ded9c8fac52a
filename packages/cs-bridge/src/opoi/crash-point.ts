/** Fault injection for the kill -9 tests (docs/bridge.md): the process kills itself right after that step. */
const CRASH_AT = process.env.CS_BRIDGE_CRASH_AT ?? '';

export function crashPoint(name: string): void {
  if (CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}
