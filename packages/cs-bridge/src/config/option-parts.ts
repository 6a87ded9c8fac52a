/** Options several of cs-bridge's commands take: the environment file and the node's JSON-RPC. */
import { text } from '@cs/runtime/config';

export const nonEmpty = (what: string) => (value: string) => (value === '' ? what : null);

export const ENV = text({
  category: 'general',
  arg: '<file>',
  description: 'The environment file with the variables (relative to the current directory).',
  default: '.env',
  check: nonEmpty('a file name, as in -env=<file>'),
});

/** The node's JSON-RPC, for every requester command (defaults: the env file's). */
export const NODE_OPTIONS = {
  rpcurl: text({
    category: 'connection',
    arg: '<url>',
    description: "The node's JSON-RPC URL (default: the env file's CSD_RPC_URL).",
    default: null,
  }),
  rpcuser: text({ category: 'connection', arg: '<user>', description: "The node's RPC user (default: the env file's CSD_RPC_USER).", default: null }),
  rpcpassword: text({
    category: 'connection',
    arg: '<pw>',
    description: "The node's RPC password (default: the env file's CSD_RPC_PASS).",
    default: null,
    sensitive: true,
  }),
};
