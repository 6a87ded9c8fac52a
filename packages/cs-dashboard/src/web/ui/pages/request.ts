// One request's lifecycle as a timeline, from the node's record and audit and the bridge's
// submission (/api/node/<i>/opoi/<id>), redrawn on every opoi push about it and each new block.
// OPEN: request, assignment, commit, reveal, winner, publish, payout. VERIFIABLE adds what the
// chain checks between the winner and the payout: the PUBLISH, the drawn auditors, their
// verdicts and the outcome.
import { type Ctx, getJson } from '../api.ts';
import { addressLink, blockLink, facts, h, section, txLink } from '../dom.ts';
import type { Request, Snapshot } from './request-data.ts';
import { auditSteps, type Step } from './request-audit.ts';

/** A request's timeline, live: used by the request page and under the ask form. */
export async function followRequest(ctx: Ctx, box: HTMLElement, id: string): Promise<void> {
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

function winnerStep(r: Request | null): Step {
  const detail = (): (Node | string)[] => {
    if (r === null || r.status === 'PENDING') return ['not resolved yet'];
    if (r.status === 'EXPIRED' && r.winner === null) return [`expired at height ${r.resolved_height}: refund ${r.refund_amount?.toFixed(8)}`];
    const paid = r.status === 'FULFILLED' && r.winner_amount !== null ? `, ${r.winner_amount.toFixed(8)} coins` : '';
    return [addressLink(r.winner!), ` at height ${r.resolved_height}${paid}`];
  };
  return { name: 'winner', done: r !== null && r.status !== 'PENDING', detail: detail() };
}

function payoutStep(snap: Snapshot): Step {
  const { request: r, submission: sub } = snap;
  const outputs =
    r?.task_type === 'VERIFIABLE' && r.payout_outputs.length > 0
      ? [`; pays ${r.payout_outputs.map((o) => `${o.address ?? 'burned'} ${o.amount.toFixed(8)}`).join(', ')}`]
      : [];
  return {
    name: 'payout',
    done: r?.payout_status === 'confirmed',
    detail: r?.payout_txid
      ? [
          `${r.payout_status}, tx `,
          txLink(r.payout_txid),
          r.payout_height ? ` at height ${r.payout_height}` : '',
          sub?.miner_share ? `; miner's share ${sub.miner_share}` : '',
          ...outputs,
        ]
      : [r?.payout_status ?? 'none', ...outputs],
  };
}

function chainSteps(snap: Snapshot): Step[] {
  const { request: r, submission: sub, asked } = snap;
  return [
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
    winnerStep(r),
  ];
}

/** OPEN: the answer reaches the node off chain (submitopoicontent), after the winner. */
function contentStep(snap: Snapshot): Step {
  const { content } = snap;
  return {
    name: 'publish',
    done: content !== null,
    detail: content ? [`the answer is on the node (${content.content_hex.length / 2} bytes)`] : ['not published yet'],
  };
}

async function requestView(ctx: Ctx, id: string): Promise<HTMLElement[]> {
  const snap = await getJson<Snapshot>(`/api/node/${ctx.node}/opoi/${id}`);
  const { request: r, submission: sub, content } = snap;
  const verifiable = r?.task_type === 'VERIFIABLE';
  const steps = [...chainSteps(snap), ...(verifiable ? auditSteps(snap) : [contentStep(snap)]), payoutStep(snap)];
  const answerText = content ? hexToText(content.content_hex) : sub?.response_hex ? hexToText(sub.response_hex) : null;
  return [
    ...snap.down.map((d) => h('p', { class: 'error' }, d)),
    section(
      `Request ${id}`,
      r
        ? facts([
            ['status', h('span', { id: 'request-status' }, r.status)],
            ['task type', h('span', { id: 'request-task-type' }, r.task_type)],
            ['model', r.model],
            ['max tokens', r.max_tokens],
            ['payment', r.payment.toFixed(8)],
            ...(verifiable ? ([['audit', `quorum ${r.audit_quorum}, fee ${r.audit_fee.toFixed(8)} per auditor`]] as [string, string][]) : []),
            ['requester', addressLink(r.requester)],
            ['executor', r.executor ? addressLink(r.executor) : 'any ACTIVE staker'],
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
