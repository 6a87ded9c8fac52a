/**
 * page and pageSize on list routes, as miningcore's API names them: page counts from 0, pageSize
 * is 1 to MAX_PAGE_SIZE. A list asked without either comes whole, as before paging existed.
 */
export const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 15;

export class PagingError extends Error {}

/** Rows page × pageSize onward, at most pageSize of them; `items` newest first. */
export function pageOf<T>(items: readonly T[], query: URLSearchParams): readonly T[] {
  const page = query.get('page');
  const size = query.get('pageSize');
  if (page === null && size === null) return items;
  const p = page === null ? 0 : whole(page, 'page', 0, Number.MAX_SAFE_INTEGER);
  const n = size === null ? DEFAULT_PAGE_SIZE : whole(size, 'pageSize', 1, MAX_PAGE_SIZE);
  return items.slice(p * n, p * n + n);
}

function whole(text: string, name: string, min: number, max: number): number {
  const n = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) throw new PagingError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}
