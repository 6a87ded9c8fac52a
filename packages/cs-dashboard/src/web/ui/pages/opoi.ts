// OPoI: the ask form, the requests with their status, the model manifests, the stakes with what
// they serve, and the bridge's queue with the audits it was drawn for; redrawn on every opoi push. One request's timeline is
// request.ts.
import type { Ctx } from '../api.ts';
import { addressLink, h, requestLink, section, table } from '../dom.ts';
import { askForm } from './ask-form.ts';

interface Request {
  request_id: string;
  status: string;
  task_type: string;
  model: string;
  payment: number;
  block_height: number;
  commits: unknown[];
  winner: string | null;
  payout_status: string;
}

interface Stake {
  miner_address: string;
  status: string;
  amount: number;
  serves: string[];
  height: number;
  renew_by_height: number;
  unlock_height: number | null;
}

interface Manifest {
  model_id: string;
  gguf_sha256: string;
  gguf_size: number;
  bos: string;
  tolerance: number;
  height: number;
}

/** The bridge's queue (docs/bridge.md, /svc/opoi/pending): its requests, then the audits its address was drawn for. */
interface Pending {
  kind?: 'request' | 'audit';
  request_id: string;
  task_type?: string;
  stage: string;
  assigned_to: string | null;
  /** An audit's verdict, once its miner replayed the answer. */
  verdict?: string | null;
  /** A VERIFIABLE answer's check by a second miner before the commit. */
  check?: { miner: string | null; verdict: string | null } | null;
}

/** An audit's verdict, or the pre-commit check's of a request ('—' while there is none). */
function verdictOf(p: Pending): string {
  if (p.kind === 'audit') return p.verdict ?? '—';
  return p.check ? `checked by ${p.check.miner ?? '—'}: ${p.check.verdict ?? 'pending'}` : '—';
}

const PAGE = 50;

export async function opoiPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  const lists = h('div', {});
  const draw = async () => {
    const first = await ctx.rest<{ total: number }>('opoi/requests.json?count=1');
    const page = await ctx.rest<{ requests: Request[] }>(`opoi/requests.json?from=${Math.max(0, first.total - PAGE)}&count=${PAGE}`);
    const [stakes, manifests, pending] = await Promise.all([
      ctx.rpc<Stake[]>('listopoistakes'),
      ctx.rpc<Manifest[]>('listmodelmanifests'),
      ctx.bridge<Pending[]>('pending').catch((e: Error) => e),
    ]);
    lists.replaceChildren(
      section(
        `Requests (${first.total}, newest first)`,
        table(
          ['request', 'status', 'type', 'model', 'payment', 'block', 'commits', 'winner', 'payout'],
          page.requests
            .reverse()
            .map((r) => [
              requestLink(r.request_id),
              r.status,
              r.task_type,
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
        'Model manifests',
        table(
          ['model id', 'GGUF SHA-256', 'size', 'BOS', 'tolerance (2^-16 logit)', 'registered at'],
          manifests.map((m) => [m.model_id, h('span', { class: 'hash' }, m.gguf_sha256), m.gguf_size, m.bos, m.tolerance, m.height]),
          { id: 'opoi-manifests' },
        ),
      ),
      section(
        'Stakes',
        table(
          ['miner', 'status', 'amount', 'serves', 'staked at', 'renew by', 'unlocks at'],
          stakes.map((s) => [
            addressLink(s.miner_address),
            s.status,
            s.amount.toFixed(8),
            s.serves.join(', ') || '—',
            s.height,
            s.renew_by_height,
            s.unlock_height ?? '—',
          ]),
          { id: 'opoi-stakes' },
        ),
      ),
      section(
        "Bridge's queue",
        pending instanceof Error
          ? h('p', { class: 'error' }, pending.message)
          : table(
              ['kind', 'request', 'type', 'stage', 'assigned to', 'verdict'],
              pending.map((p) => [
                p.kind ?? 'request',
                requestLink(p.request_id),
                p.task_type ?? 'OPEN',
                p.stage,
                p.assigned_to ?? '—',
                verdictOf(p),
              ]),
              { id: 'bridge-queue' },
            ),
      ),
    );
  };
  view.append(await askForm(ctx), lists);
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
