/** A failure cs-cli reports as `error: <message>` and exit code 1, as bitcoin-cli does. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
}

/** The server could not be reached (or answered "warming up"): what -rpcwait retries. */
export class ConnectionFailed extends CliError {
  override readonly name = 'ConnectionFailed';
}
