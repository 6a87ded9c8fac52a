import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface StdinArgs {
  /** The first line, when -stdinrpcpass asked for it; undefined when stdin ended before it. */
  readonly password?: string;
  /** The remaining lines, when -stdin asked for them. */
  readonly args: readonly string[];
}

/**
 * Reads what -stdinrpcpass and -stdin take from standard input, one line each: the password
 * first, then the extra arguments until EOF. With -stdinrpcpass alone only one line is read, so a
 * terminal is not held open until Ctrl-D.
 */
export async function readStdin(input: Readable, wants: { readonly password: boolean; readonly args: boolean }): Promise<StdinArgs> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  let password: string | undefined;
  const args: string[] = [];
  for await (const line of lines) {
    if (wants.password && password === undefined) {
      password = line;
      if (!wants.args) break;
    } else {
      args.push(line);
    }
  }
  lines.close();
  return password === undefined ? { args } : { password, args };
}
