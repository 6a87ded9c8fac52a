/** The data directory: where it is, what it must be, its single-instance lock and the RPC cookie. */
export * from './cookie.ts';
export * from './lock.ts';
export * from './open.ts';
export * from './paths.ts';
export * from './prepare.ts';
