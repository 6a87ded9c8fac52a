/**
 * Every cs-miner option, declared with csd's option vocabulary (flag, integer, text, list,
 * choice) so that parsing, error messages and -help read the same as csd's. Options are given on
 * the command line only (`-key=value`, `-key` alone for a switch); docs/miner.md lists them.
 */
import { choice, flag, INFO_OPTIONS, integer, list, text } from '@cs/runtime/config';
import { CORRUPT_MODES } from '../opoi/corrupt.ts';

function checkPool(value: string): string | null {
  return /^(?:[a-z+]+:\/\/)?[^\s]+:\d{1,5}\/?$/.test(value) ? null : 'stratum+tcp://host:port or stratum+ssl://host:port';
}

function checkPercent(value: string): string | null {
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  return n > 0 && n <= 100 ? null : 'a percentage above 0 and up to 100';
}

function checkModel(value: string): string | null {
  return /^[^=\s]+=(llama|ollama|openai):\S+$/.test(value)
    ? null
    : '<name>=llama:<file.gguf>, <name>=ollama:<url>[#<model>] or <name>=openai:<url>[#<model>]';
}

export const MINER_OPTIONS = {
  ...INFO_OPTIONS,
  json: flag({ category: 'general', description: 'Log JSON lines (one object per event and status) instead of text, for machines.', default: false }),
  loglevel: choice({
    category: 'general',
    arg: '<level>',
    description: 'Least severe log level written: error, warn, info or debug.',
    values: ['error', 'warn', 'info', 'debug'] as const,
    default: 'info',
  }),
  statusinterval: integer({ category: 'general', arg: '<seconds>', description: 'Seconds between status lines (0: none).', default: 5, min: 0 }),
  threads: integer({ category: 'general', arg: '<n>', description: 'Solver threads (0: one per core).', default: 0, min: 0, max: 1024 }),
  cpulimit: text({
    category: 'general',
    arg: '<percent>',
    description:
      "Share of each solver thread's time spent solving, above 0 and up to 100 (decimals allowed); the rest it sleeps, leaving the core to inference and other programs.",
    default: '100',
    check: checkPercent,
  }),
  algo: choice({
    category: 'general',
    arg: '<n_k>',
    description:
      "Equihash parameters when the pool's mining.notify does not name them: 125_4 (ZelHash, main and test; minutes per nonce on a CPU), 48_5 (regtest) or 200_9.",
    values: ['125_4', '48_5', '200_9'] as const,
    default: '125_4',
  }),

  pool: list({
    category: 'connection',
    arg: '<url>',
    description: 'Pool or bridge address, stratum+tcp://host:port or stratum+ssl://host:port (TLS); repeat for a failover list, tried in order.',
    default: [],
    check: checkPool,
  }),
  user: text({ category: 'connection', arg: '<address.worker>', description: 'Login: <wallet_address>.<worker_name>.', default: null }),
  password: text({
    category: 'connection',
    arg: '<pw>',
    description: 'Password sent with the login (pools read d=<difficulty> from it).',
    default: 'x',
    sensitive: true,
  }),
  retries: integer({
    category: 'connection',
    arg: '<n>',
    description: 'Failed connection attempts in a row before the next pool of the list is tried.',
    default: 3,
    min: 1,
  }),
  retrypause: integer({
    category: 'connection',
    arg: '<ms>',
    description: 'First reconnection delay; it doubles with each failure.',
    default: 1000,
    min: 0,
  }),
  retrymax: integer({ category: 'connection', arg: '<ms>', description: 'Longest reconnection delay.', default: 30_000, min: 0 }),
  timeout: integer({ category: 'connection', arg: '<ms>', description: 'Connect and request timeout.', default: 10_000, min: 100 }),
  tlsverify: flag({
    category: 'connection',
    description:
      "Verify a stratum+ssl pool's certificate against the system's authorities (or -tlsca). Off by default, as in stock miners: pools mostly use self-signed certificates.",
    default: false,
  }),
  tlsca: text({
    category: 'connection',
    arg: '<file>',
    description: 'PEM certificate(s) to trust for stratum+ssl pools; implies -tlsverify.',
    default: null,
  }),
  extranonce: flag({ category: 'connection', description: 'Ask the pool for mining.set_extranonce (mining.extranonce.subscribe).', default: true }),

  model: list({
    category: 'inference',
    arg: '<name>=<backend>',
    description:
      'Serve a model for OPoI under <name>: llama:<file.gguf> (embedded llama.cpp), ollama:<url>[#<model>] or openai:<url>[#<model>] (OpenAI-compatible server; the key comes from OPENAI_API_KEY). Repeatable.',
    default: [],
    check: checkModel,
  }),
  'model-path': text({
    category: 'inference',
    arg: '<file.gguf>',
    description: 'Serve this GGUF file with the embedded engine (same as -model=<name>=llama:<file>).',
    default: null,
  }),
  'model-name': text({
    category: 'inference',
    arg: '<name>',
    description: 'The name -model-path is served under (default: the file name without .gguf).',
    default: null,
  }),
  opoi: flag({ category: 'inference', description: 'Announce OPoI support (opoi.subscribe) when at least one model is served.', default: true }),
  'opoi-max-tokens': integer({
    category: 'inference',
    arg: '<n>',
    description: 'Largest max_tokens accepted, announced to the bridge.',
    default: 4096,
    min: 1,
  }),
  'opoi-max-prompt': integer({
    category: 'inference',
    arg: '<bytes>',
    description: 'Largest prompt accepted, announced to the bridge (at most 262144: an opoi.assign line carries it as hex).',
    default: 65_536,
    min: 1,
    max: 262_144,
  }),
  'opoi-concurrency': integer({
    category: 'inference',
    arg: '<n>',
    description: 'Assignments run at the same time, announced to the bridge.',
    default: 1,
    min: 1,
  }),
  'opoi-timeout': integer({
    category: 'inference',
    arg: '<ms>',
    description: 'An assignment without an answer after this long is reported as a timeout.',
    default: 300_000,
    min: 1,
  }),
  'opoi-audits': flag({
    category: 'inference',
    description: 'Take audits (opoi.audit) of VERIFIABLE answers for the GGUF files served by the embedded engine, announced to the bridge.',
    default: true,
  }),
  corruptanswers: choice({
    category: 'inference',
    arg: '<mode>',
    description:
      'For demonstrations and tests: corrupt every VERIFIABLE answer so that its audit fails: token (one token changed at a random position), truncate (the second half dropped), random (every token random); none: honest.',
    values: CORRUPT_MODES,
    default: 'none',
  }),
  'gguf-identity': text({
    category: 'inference',
    arg: '<file.gguf>',
    description: "Print the file's SHA-256 and size (what a model manifest names: registermodelmanifest's gguf_sha256 and gguf_size) and exit.",
    default: null,
  }),
  'llama-threads': integer({
    category: 'inference',
    arg: '<n>',
    description: 'CPU threads of the embedded engine (0: half the cores, at least 1).',
    default: 0,
    min: 0,
  }),
  'llama-context': integer({
    category: 'inference',
    arg: '<tokens>',
    description: 'Context size of the embedded engine: prompt plus answer.',
    default: 2048,
    min: 16,
  }),
  'llama-batch': integer({
    category: 'inference',
    arg: '<tokens>',
    description: 'Tokens the embedded engine evaluates in one batch (0: the context size, so that an audit is one prefill pass).',
    default: 0,
    min: 0,
  }),
  'llama-gpu': choice({
    category: 'inference',
    arg: '<gpu>',
    description: "Embedded engine's llama.cpp binary: false (CPU), auto, cuda, vulkan or metal.",
    values: ['false', 'auto', 'cuda', 'vulkan', 'metal'] as const,
    default: 'false',
  }),
};
