import { CLI_OPTIONS } from '../config/cli-options.ts';
import { NODE_OPTIONS } from '../config/options.ts';
import type { OptionTable } from '../config/spec.ts';

const sensitiveOptions = (table: OptionTable) => Object.keys(table).filter((name) => table[name].sensitive);

/**
 * Keys whose values never reach a log line: generic secret names plus every option the tables
 * mark sensitive (rpcpassword), at the top of a log object or nested up to three levels
 * (`{ headers: { authorization } }`, `{ config: { options: { rpcpassword } } }`). Redaction works
 * on keys only: a secret interpolated into a message string is not caught, so never put one there.
 */
const SECRET_KEYS = [
  ...new Set(['password', 'cookie', 'authorization', 'Authorization', ...sensitiveOptions(NODE_OPTIONS), ...sensitiveOptions(CLI_OPTIONS)]),
];

export const REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]);

export const REDACTED = '[redacted]';
