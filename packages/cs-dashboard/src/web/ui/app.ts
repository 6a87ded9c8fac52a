/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The single page: a hash router (#/block/<hash>, #/pool, ...), the node picker, the search box
// and the status bar of the programs behind the dashboard.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { type Ctx, getJson, makeCtx } from './api.ts';
import { errorBox, h } from './dom.ts';
import { Live } from './live.ts';
import { addressPage } from './pages/address.ts';
import { blockPage } from './pages/block.ts';
import { explorerPage } from './pages/explorer.ts';
import { mempoolPage } from './pages/mempool.ts';
import { opoiPage } from './pages/opoi.ts';
import { requestPage } from './pages/request.ts';
import { peersPage } from './pages/peers.ts';
import { poolPage } from './pages/pool.ts';
import { txPage } from './pages/tx.ts';

interface PublicConfig {
  nodes: { name: string }[];
  poolUrl: string | null;
  bridgeUrl: string | null;
  ask: boolean;
}

interface ProgramStatus {
  name: string;
  configured: boolean;
  up: boolean;
  detail: string;
}

type Page = (ctx: Ctx, view: HTMLElement, arg: string) => Promise<void>;

const ROUTES: [RegExp, Page][] = [
  [/^\/?$/, explorerPage],
  [/^\/block\/(.+)$/, blockPage],
  [/^\/tx\/(.+)$/, txPage],
  [/^\/address\/(.+)$/, addressPage],
  [/^\/mempool$/, mempoolPage],
  [/^\/peers$/, peersPage],
  [/^\/pool$/, poolPage],
  [/^\/opoi$/, opoiPage],
  [/^\/opoi\/(.+)$/, requestPage],
];

const live = new Live();
const view = document.getElementById('view')!;
const picker = document.getElementById('node') as HTMLSelectElement;
let config: PublicConfig = { nodes: [], poolUrl: null, bridgeUrl: null, ask: false };
let timers: number[] = [];
let shown = 0;

async function render(): Promise<void> {
  const path = decodeURIComponent(location.hash.replace(/^#/, ''));
  for (const t of timers) clearInterval(t);
  timers = [];
  live.clearPage();
  const mine = ++shown;
  const ctx = makeCtx(Number(picker.value || 0), live, config.ask, timers, () => mine === shown);
  const page = document.createElement('div');
  view.replaceChildren(page);
  for (const a of document.querySelectorAll('nav a'))
    a.classList.toggle('active', a.getAttribute('href') === `#${path.split('/').slice(0, 2).join('/') || '/'}`);
  const route = ROUTES.find(([re]) => re.test(path));
  if (!route) {
    page.append(h('p', { class: 'error' }, `No page here: ${path}`));
    return;
  }
  try {
    await route[1](ctx, page, route[0].exec(path)![1] ?? '');
  } catch (e) {
    if (mine === shown) page.append(errorBox(e));
  }
}

function search(q: string): string {
  const s = q.trim();
  if (/^\d+$/.test(s)) return `#/block/${s}`;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) return `#/opoi/${s.toLowerCase()}`;
  // A 64-hex string is a block hash or a txid: the block page tries it and falls back to the transaction.
  if (/^[0-9a-f]{64}$/i.test(s)) return `#/block/${s.toLowerCase()}`;
  return `#/address/${s}`;
}

function statusBar(nodes: ProgramStatus[], pool: ProgramStatus, bridge: ProgramStatus, feeds: boolean[]): HTMLElement[] {
  const badge = (s: ProgramStatus, extra = '') =>
    h(
      'span',
      { class: `badge ${s.up ? 'up' : s.configured ? 'down' : 'off'}`, title: s.detail, 'data-program': s.name },
      `${s.name} ${s.up ? 'up' : s.configured ? 'down' : 'not configured'}${extra}`,
    );
  return [
    ...nodes.map((n, i) => badge(n, n.up ? ` (${n.detail}${feeds[i] ? ', live' : ''})` : '')),
    badge(pool),
    badge(bridge),
    h('span', { class: `badge ${live.connected ? 'up' : 'down'}` }, live.connected ? 'live feed' : 'live feed reconnecting'),
  ];
}

async function refreshStatus(): Promise<void> {
  const bar = document.getElementById('status')!;
  try {
    const s = await getJson<{ nodes: ProgramStatus[]; pool: ProgramStatus; bridge: ProgramStatus; feeds: boolean[] }>('/api/status');
    bar.replaceChildren(...statusBar(s.nodes, s.pool, s.bridge, s.feeds));
  } catch {
    bar.replaceChildren(h('span', { class: 'badge down' }, 'dashboard server unreachable'));
  }
}

async function start(): Promise<void> {
  config = await getJson<PublicConfig>('/api/config');
  picker.replaceChildren(...config.nodes.map((n, i) => h('option', { value: String(i) }, n.name)));
  picker.onchange = () => void render();
  document.getElementById('search')!.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = (ev.target as HTMLFormElement).elements.namedItem('q') as HTMLInputElement;
    location.hash = search(input.value);
    input.value = '';
  });
  window.addEventListener('hashchange', () => void render());
  live.always((p) => {
    if (p.type === 'feeds' || p.type === 'live' || p.type === 'new-blocks') void refreshStatus();
  });
  setInterval(() => void refreshStatus(), 5000);
  await refreshStatus();
  await render();
}

void start();
