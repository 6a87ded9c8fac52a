/**
 * Writing the environment file: the documented template (.env.example is this text with no values),
 * values kept where the file already has them, owner-only permissions since it holds the node's
 * password and the API key.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Writes the file with `values` over what it holds (only keys given change), mode 0600, whole or
 * not at all: a fresh owner-only temporary file renamed over it, so a crash mid-write never leaves
 * a truncated file (and the API key in it) behind.
 */
export function writeEnvFile(path: string, values: Record<string, string>): void {
  const merged = { ...readEnvFile(path), ...values };
  const temporary = `${path}.tmp`;
  // A leftover from a crash may have other permissions; 'wx' must create the file anew.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, envText(merged), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
}

/** A new OPOI_REQUESTER_API_KEY: 24 random bytes, base64url (what the wizard and cs-network generate). */
export function newApiKey(): string {
  return randomBytes(24).toString('base64url');
}
