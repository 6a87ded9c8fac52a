// OPoI: the requests with their status, stakes, the bridge's queue and the ask form; and one
// request's lifecycle as a timeline (request, assignment, commit, reveal, winner, publish,
// payout) from the node's REST and the bridge API, redrawn on every opoi push about it.
import { type Ctx, getJson, postJson } from '../api.ts';
import { addressLink, blockLink, facts, h, requestLink, section, table, txLink } from '../dom.ts';

interface Commit {
  miner: string;
  commit_txid: string;
  commit_height: number;
  revealed: boolean;
  reveal_txid?: string;
  reveal_height?: number;
  token_count?: number;
  winner: boolean;
}

interface Request {
  request_id: string;
  status: string;
  requester: string;
  model: string;
  max_tokens: number;
  payment: number;
  block_height: number;
  block_hash: string | null;
  tx_hash: string;
  commit_window_closes_at_height: number | null;
  reveal_deadline_height: number | null;
  expires_at_height: number | null;
  commits: Commit[];
  resolved_height: number | null;
  winner: string | null;
  winner_amount: number | null;
  refund_amount: number | null;
  payout_status: string;
  payout_txid: string | null;
  payout_height: number | null;
}

interface Submission {
  stage: string;
  note: string | null;
  miner: string | null;
  token_count: number | null;
  commit_txid: string | null;
  reveal_txid: string | null;
  payout_txid: string | null;
  miner_share: number | null;
  response_hex: string | null;
}

interface Content {
  content_hex: string;
  miner: string;
}

interface Stake {
  miner_address: string;
  status: string;
  amount: number;
  height: number;
  renew_by_height: number;
  unlock_height: number | null;
}

interface Asked {
  request_id: string;
  txid: string;
  state: string;
  detail: string;
}

const PAGE = 50;

export async function opoiPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  const lists = h('div', {});
  const draw = async () => {
    const first = await ctx.rest<{ total: number }>('opoi/requests.json?count=1');
    const page = await ctx.rest<{ requests: Request[] }>(`opoi/requests.json?from=${Math.max(0, first.total - PAGE)}&count=${PAGE}`);
    const [stakes, pending] = await Promise.all([
      ctx.rpc<Stake[]>('listopoistakes'),
      ctx.bridge<{ request_id: string; stage: string; assigned_to: string | null }[]>('pending').catch((e: Error) => e),
    ]);
    lists.replaceChildren(
      section(
        `Requests (${first.total}, newest first)`,
        table(
          ['request', 'status', 'model', 'payment', 'block', 'commits', 'winner', 'payout'],
          page.requests
            .reverse()
            .map((r) => [
              requestLink(r.request_id),
              r.status,
              r.model,
              r.payment.toFixed(8),
              r.block_height,
              r.commits.length,
              r.winner ? addressLink(r.winner) : '—',
              r.payout_status,
            ]),
          { id: 'opoi-requests' },
        ),
      ),
      section(
        'Stakes',
        table(
          ['miner', 'status', 'amount', 'staked at', 'renew by', 'unlocks at'],
          stakes.map((s) => [addressLink(s.miner_address), s.status, s.amount.toFixed(8), s.height, s.renew_by_height, s.unlock_height ?? '—']),
          { id: 'opoi-stakes' },
        ),
      ),
      section(
        "Bridge's queue",
        pending instanceof Error
          ? h('p', { class: 'error' }, pending.message)
          : table(
              ['request', 'stage', 'assigned to'],
              pending.map((p) => [requestLink(p.request_id), p.stage, p.assigned_to ?? '—']),
            ),
      ),
    );
  };
  view.append(askForm(ctx), lists);
  await draw();
  let queued = false;
  ctx.live.on((p) => {
    if (p.node !== ctx.node || p.type !== 'opoi' || queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      void draw().catch(() => {});
    }, 300);
  });
}

function askForm(ctx: Ctx): HTMLElement {
  if (!ctx.askEnabled)
    return section('Ask a question', h('p', {}, 'The ask form is off: the dashboard has no bridge API key, or was started with ask off.'));
  const out = h('div', { id: 'ask-result' });
  const field = (label: string, input: HTMLElement) => h('label', {}, label, input);
  const form = h(
    'form',
    { id: 'ask-form', class: 'ask' },
    field('Question', h('textarea', { name: 'prompt', rows: '3', required: '', placeholder: 'What is two plus two?' })),
    field('Model', h('input', { name: 'model', value: 'tiny', required: '' })),
    field('Max tokens', h('input', { name: 'max_tokens', type: 'number', min: '1', value: '16', required: '' })),
    field('Payment (coins)', h('input', { name: 'payment', value: '0.05', required: '' })),
    h('button', { type: 'submit' }, 'Ask'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const body = Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v)]));
    out.replaceChildren(h('p', {}, 'Sending the REQUEST…'));
    postJson<Asked>('/api/ask', body)
      .then((a) => {
        out.replaceChildren(h('p', {}, 'REQUEST sent: ', requestLink(a.request_id), ' (txid ', txLink(a.txid), '). Follow it below.'));
        const follow = h('div', {});
        out.append(follow);
        void followRequest(ctx, follow, a.request_id);
      })
      .catch((e: Error) => out.replaceChildren(h('p', { class: 'error' }, e.message)));
  });
  return section('Ask a question', h('p', {}, 'The REQUEST is paid from the node wallet; the bridge gets the prompt once it confirms.'), form, out);
}

/** A request's timeline, live: used by the request page and under the ask form. */
async function followRequest(ctx: Ctx, box: HTMLElement, id: string): Promise<void> {
  const draw = async () => box.replaceChildren(...(await requestView(ctx, id)));
  await draw().catch((e: Error) => box.replaceChildren(h('p', { class: 'error' }, e.message)));
  let queued = false;
  const again = () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      void draw().catch(() => {});
    }, 200);
  };
  ctx.live.on((p) => {
    if (p.node !== ctx.node) return;
    // Assignment and the bridge's own stages make no chain step: new blocks are when they move.
    if ((p.type === 'opoi' && p.request_id === id) || p.type === 'new-blocks') again();
  });
  ctx.every(3000, again);
}

export async function requestPage(ctx: Ctx, view: HTMLElement, id: string): Promise<void> {
  await followRequest(ctx, view, id.toLowerCase());
}

interface Step {
  readonly name: string;
  readonly done: boolean;
  readonly detail: (Node | string)[];
}

async function requestView(ctx: Ctx, id: string): Promise<HTMLElement[]> {
  const snap = await getJson<{
    request: Request | null;
    submission: Submission | null;
    content: Content | null;
    asked: Asked | null;
    down: string[];
  }>(`/api/node/${ctx.node}/opoi/${id}`);
  const { request: r, submission: sub, content, asked } = snap;
  const steps: Step[] = [
    {
      name: 'request',
      done: r !== null,
      detail: r
        ? [
            'confirmed in block ',
            r.block_hash ? blockLink(r.block_hash) : String(r.block_height),
            ` (height ${r.block_height}), tx `,
            txLink(r.tx_hash),
          ]
        : [asked ? asked.detail : 'not on chain yet'],
    },
    {
      name: 'assignment',
      done: sub?.miner != null,
      detail: sub?.miner
        ? [`assigned to ${sub.miner} by the bridge (stage ${sub.stage})`]
        : [sub ? `bridge stage ${sub.stage}` : asked ? `prompt: ${asked.detail}` : 'the bridge has not taken it'],
    },
    {
      name: 'commit',
      done: (r?.commits.length ?? 0) > 0,
      detail: r?.commits.length
        ? r.commits.flatMap((c) => [`${c.miner} at height ${c.commit_height}, tx `, txLink(c.commit_txid), ' '])
        : [r?.commit_window_closes_at_height ? `window closes at ${r.commit_window_closes_at_height}` : 'none yet'],
    },
    {
      name: 'reveal',
      done: r?.commits.some((c) => c.revealed) ?? false,
      detail: r?.commits.some((c) => c.revealed)
        ? r.commits
            .filter((c) => c.revealed)
            .flatMap((c) => [`${c.miner} at height ${c.reveal_height} (${c.token_count} tokens), tx `, txLink(c.reveal_txid!), ' '])
        : [r?.reveal_deadline_height ? `deadline ${r.reveal_deadline_height}` : 'none yet'],
    },
    {
      name: 'winner',
      done: r !== null && r.status !== 'PENDING',
      detail:
        r?.status === 'FULFILLED'
          ? [addressLink(r.winner!), ` at height ${r.resolved_height}, ${r.winner_amount?.toFixed(8)} coins`]
          : r?.status === 'EXPIRED'
            ? [`expired at height ${r.resolved_height}: refund ${r.refund_amount?.toFixed(8)}`]
            : ['not resolved yet'],
    },
    {
      name: 'publish',
      done: content !== null,
      detail: content ? [`the answer is on the node (${content.content_hex.length / 2} bytes)`] : ['not published yet'],
    },
    {
      name: 'payout',
      done: r?.payout_status === 'confirmed',
      detail: r?.payout_txid
        ? [
            `${r.payout_status}, tx `,
            txLink(r.payout_txid),
            r.payout_height ? ` at height ${r.payout_height}` : '',
            sub?.miner_share ? `; miner's share ${sub.miner_share}` : '',
          ]
        : [r?.payout_status ?? 'none'],
    },
  ];
  const answerText = content ? hexToText(content.content_hex) : sub?.response_hex ? hexToText(sub.response_hex) : null;
  return [
    ...snap.down.map((d) => h('p', { class: 'error' }, d)),
    section(
      `Request ${id}`,
      r
        ? facts([
            ['status', h('span', { id: 'request-status' }, r.status)],
            ['model', r.model],
            ['max tokens', r.max_tokens],
            ['payment', r.payment.toFixed(8)],
            ['requester', addressLink(r.requester)],
          ])
        : h('p', {}, 'The REQUEST is not confirmed yet.'),
      h(
        'ol',
        { class: 'timeline', id: 'timeline' },
        ...steps.map((s) => h('li', { class: s.done ? 'done' : 'todo', 'data-step': s.name }, h('strong', {}, s.name), ' ', ...s.detail)),
      ),
    ),
    section(
      'Answer',
      answerText === null
        ? h('p', {}, 'No answer yet.')
        : h(
            'div',
            {},
            h('p', { class: 'note' }, content ? 'Published on the node:' : 'Received by the bridge (published after the reveal):'),
            h('pre', { id: 'answer', 'data-published': content ? 'yes' : 'no' }, answerText),
          ),
    ),
  ];
}

function hexToText(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return new TextDecoder().decode(bytes);
}
