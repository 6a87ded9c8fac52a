/**
 * Response formats, chosen by a suffix on the path's last segment as Core's REST does:
 * `.json` (the default when there is no suffix), `.bin`, `.hex`.
 */
export type RestFormat = 'json' | 'bin' | 'hex';

export const CONTENT_TYPES: Readonly<Record<RestFormat, string>> = {
  json: 'application/json',
  bin: 'application/octet-stream',
  hex: 'text/plain',
};

/** A path (after /rest/) with its format suffix taken off. */
export interface FormattedPath {
  readonly path: string;
  /** The format asked for; `null` for a suffix that names no format (`.xml`). */
  readonly format: RestFormat | null;
}

/**
 * Splits off the suffix after the last '.' of the last segment. Hashes, heights, addresses and
 * outpoints never contain a dot, so any dot there introduces a format.
 */
export function splitFormat(path: string): FormattedPath {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return { path, format: 'json' };
  const suffix = path.slice(dot + 1);
  const format = suffix === 'json' || suffix === 'bin' || suffix === 'hex' ? suffix : null;
  return { path: path.slice(0, dot), format };
}

/** Core's "available" list, e.g. ".json, .bin, .hex". */
export function formatList(formats: readonly RestFormat[]): string {
  return formats.map((f) => `.${f}`).join(', ');
}
