/** debug.log through pino, owner-only, with secrets redacted by key. */
export * from './console.ts';
export * from './logger.ts';
export * from './redact.ts';
