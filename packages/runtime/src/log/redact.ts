import { sensitiveOptions, type OptionTable } from '../config/spec.ts';

/** Secret names redacted whatever a program's option tables say. */
const GENERIC_SECRET_KEYS = ['password', 'cookie', 'authorization', 'Authorization'];

/**
 * Keys whose values never reach a log line: generic secret names plus every option the tables
 * mark sensitive (rpcpassword), at the top of a log object or nested up to three levels
 * (`{ headers: { authorization } }`, `{ config: { options: { rpcpassword } } }`). Redaction works
 * on keys only: a secret interpolated into a message string is not caught, so never put one there.
 */
export function redactPaths(tables: readonly OptionTable[]): readonly string[] {
  const keys = [...new Set([...GENERIC_SECRET_KEYS, ...tables.flatMap(sensitiveOptions)])];
  return keys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]);
}

export const REDACTED = '[redacted]';
