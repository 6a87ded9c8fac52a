/**
 * Writing the environment file: the documented template (.env.example is this text with no values),
 * values kept where the file already has them, owner-only permissions since it holds the node's
 * password and the API key.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { VARIABLES, readEnvFile } from '../config/env.ts';

function quote(value: string): string {
  if (/[\n"]/.test(value)) throw new Error('values cannot contain newlines or double quotes');
  return /^[A-Za-z0-9_.:/@+,=-]*$/.test(value) ? value : `"${value}"`;
}

/** The file's text: every variable with its help; `values` first, else the default (required ones empty). */
export function envText(values: Record<string, string>): string {
  const lines = ['# cs-bridge environment file (docs/bridge.md). Keep it owner-only: it holds secrets.', ''];
  for (const v of VARIABLES) {
    const required = v.default === '' && v.asked === true;
    lines.push(`# ${v.help}${required ? ' (required)' : v.default === '' ? '' : ` (default ${v.default})`}`);
    lines.push(`${v.name}=${quote(values[v.name] ?? v.default)}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** Writes the file with `values` over what it holds (only keys given change), mode 0600. */
export function writeEnvFile(path: string, values: Record<string, string>): void {
  const merged = { ...readEnvFile(path), ...values };
  writeFileSync(path, envText(merged), { mode: 0o600 });
  // An existing file keeps its mode through writeFileSync: make it owner-only in any case.
  chmodSync(path, 0o600);
}

/** A new OPOI_REQUESTER_API_KEY: 24 random bytes, base64url (what the wizard and cs-network generate). */
export function newApiKey(): string {
  return randomBytes(24).toString('base64url');
}
