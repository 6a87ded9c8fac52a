export * from './actor.ts';
export * from './commitment.ts';
export * from './escrow.ts';
export * from './payload.ts';
export * from './records.ts';
export * from './rules.ts';
