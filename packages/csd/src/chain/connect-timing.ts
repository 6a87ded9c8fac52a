import type { Logger } from 'pino';
import type { BlockIndexEntry } from './block-index.ts';
import type { ConnectPlan } from './connect.ts';
import type { ConnectTiming } from './events.ts';

/** `performance.now()` at each step of connecting a block. */
export interface ConnectMarks {
  readonly started: number;
  /** The plan is made and the block's inputs are with the script threads. */
  readonly planned: number;
  /** The next block is planned ahead, if there was one to plan. */
  readonly aheadPlanned: number;
  /** The scripts are checked. */
  readonly verified: number;
  readonly written: number;
}

/** A connect's cost from its marks; `plannedAheadSeconds` is the planning done while the parent connected, if any. */
export function connectTiming(plan: ConnectPlan, plannedAheadSeconds: number | undefined, m: ConnectMarks): ConnectTiming {
  const inputs = plan.undo.reduce((n, spent) => n + spent.length, 0);
  // A block planned ahead counts that planning in its own plan phase, not in its parent's scripts.
  const planSeconds = (m.planned - m.started) / 1000 + (plannedAheadSeconds ?? 0);
  return {
    inputs,
    seconds: planSeconds + (m.verified - m.aheadPlanned) / 1000 + (m.written - m.verified) / 1000,
    phases: { plan: planSeconds, scripts: (m.verified - m.aheadPlanned) / 1000, write: (m.written - m.verified) / 1000 },
    plannedAhead: plannedAheadSeconds !== undefined,
  };
}

export function logConnected(log: Logger, entry: BlockIndexEntry, timing: ConnectTiming): void {
  if (entry.height % 1000 === 0) log.info({ height: entry.height, hash: entry.hashHex }, 'connected block');
  const ms = (s: number) => Math.round(s * 1e6) / 1000;
  log.debug(
    {
      height: entry.height,
      inputs: timing.inputs,
      ms: ms(timing.seconds),
      planMs: ms(timing.phases.plan),
      scriptsMs: ms(timing.phases.scripts),
      writeMs: ms(timing.phases.write),
      plannedAhead: timing.plannedAhead,
    },
    'connect timing',
  );
}
