/**
 * The Control category: help, stop, uptime, getrpcinfo, as Core offers them. They need nothing
 * from the chain, so they answer during warmup too (a node stuck loading can still be stopped).
 */
import type { RpcRegistry } from '../registry.ts';

export interface ControlOptions {
  /** Starts the node's shutdown; called after the `stop` reply has been sent. */
  readonly shutdown: () => void;
  /** When the node started, in milliseconds of `now()`. */
  readonly startedAt: number;
  /** Wall-clock milliseconds; injectable for tests. */
  readonly now?: () => number;
}

export function registerControlMethods(registry: RpcRegistry, options: ControlOptions): void {
  const now = options.now ?? Date.now;

  registry.register({
    name: 'help',
    category: 'Control',
    description: 'List all commands, or get help for a specified command.',
    params: [{ name: 'command', type: 'string', optional: true, description: 'The command to get help on (all commands when omitted)' }],
    result: '"str"    (string) The help text',
    examples: [{ args: [] }, { args: ['getblockchaininfo'], description: 'Help for one command' }],
    allowedInWarmup: true,
    handler: async ([command]) => registry.help(command),
  });

  registry.register({
    name: 'stop',
    category: 'Control',
    description: 'Request a graceful shutdown of csd.',
    params: [],
    result: '"str"    (string) A string with the content \'csd stopping\'',
    examples: [{ args: [] }],
    allowedInWarmup: true,
    handler: async () => {
      // Core's event loop exits only after the current requests are answered; deferring the
      // shutdown past this turn lets the reply go out before the server starts closing.
      setImmediate(options.shutdown);
      return 'csd stopping';
    },
  });

  registry.register({
    name: 'uptime',
    category: 'Control',
    description: 'Returns the total uptime of the server.',
    params: [],
    result: 'n    (numeric) The number of seconds that the server has been running',
    examples: [{ args: [] }],
    allowedInWarmup: true,
    handler: async () => Math.floor((now() - options.startedAt) / 1000),
  });

  registry.register({
    name: 'getrpcinfo',
    category: 'Control',
    description: 'Returns details of the RPC server.',
    params: [],
    result: [
      '{                          (json object)',
      '  "active_commands" : [    (json array) All active commands',
      '    {                      (json object) Information about an active command',
      '      "method" : "str",    (string) The name of the RPC command',
      '      "duration" : n       (numeric) The running time in microseconds',
      '    },',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    allowedInWarmup: true,
    handler: async () => ({ active_commands: registry.activeCommands().map((c) => ({ method: c.method, duration: c.duration })) }),
  });
}
