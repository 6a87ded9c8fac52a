/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Elements are built with text nodes only (never innerHTML): everything shown comes from the
// chain, the pool or a miner, and must not be able to inject markup.

type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

export const link = (href: string, text: string | number) => h('a', { href }, text);

/** A short form of a long hash, whole in the title. */
export function short(hash: string, keep = 10): HTMLElement {
  return h('span', { class: 'hash', title: hash }, hash.length > 2 * keep ? `${hash.slice(0, keep)}…${hash.slice(-keep)}` : hash);
}

export const blockLink = (hash: string) => h('a', { href: `#/block/${hash}` }, short(hash));
export const txLink = (txid: string) => h('a', { href: `#/tx/${txid}` }, short(txid));
export const addressLink = (address: string) => h('a', { href: `#/address/${address}` }, address);
export const requestLink = (id: string) => h('a', { href: `#/opoi/${id}` }, id);

export function table(headers: string[], rows: Child[][], attrs: Record<string, string> = {}): HTMLTableElement {
  return h(
    'table',
    attrs,
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

/** A two-column list of labelled values. */
export function facts(pairs: [string, Child][]): HTMLElement {
  return h('dl', { class: 'facts' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', {}, h('h2', {}, title), ...children);
}

export const time = (unixSeconds: number) =>
  new Date(unixSeconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
export const timeMs = (ms: number) => (ms ? time(ms / 1000) : '—');
/** Base units (1e-8) as coins. */
export const coins = (units: number) => (units / 1e8).toFixed(8);

export function hashrate(solPerSecond: number): string {
  const units = ['Sol/s', 'kSol/s', 'MSol/s', 'GSol/s'];
  let v = solPerSecond;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(2)} ${units[i]}`;
}

export function errorBox(e: unknown): HTMLElement {
  return h('p', { class: 'error' }, (e as Error).message);
}
