/**
 * The logging the HTTP/RPC layer needs, shaped so that a pino logger (or a child of one) can be
 * passed as is: structured fields first, then the message.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** For tools and tests that want no output. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
