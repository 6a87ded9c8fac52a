import { readFileSync } from 'node:fs';

/** Public test vectors live in the shared folder beside the repository (../shared/vectors). */
const VECTORS = new URL('../../../../shared/vectors/', import.meta.url);

export function readVector<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, VECTORS), 'utf8')) as T;
}
