import { readFileSync } from 'node:fs';

/** `#!/usr/bin/env -S node <options>`: the options Node is to run the script with. */
const SHEBANG_OPTIONS = /^#!\S*\benv\s+-S\s+node((?:\s+-\S+)*)\s*$/;

/**
 * The arguments that start the script `bin` under this process's Node as executing it would: the
 * Node options its shebang line names, then the script. Programs that spawn ours with
 * process.execPath (cs-network, the tests, the benches) so run them with the options their users
 * get, and the shebang stays the one place that names them.
 */
export function nodeArgv(bin: string): string[] {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0];
  const options = SHEBANG_OPTIONS.exec(first)?.[1].trim();
  return options ? [...options.split(/\s+/), bin] : [bin];
}
