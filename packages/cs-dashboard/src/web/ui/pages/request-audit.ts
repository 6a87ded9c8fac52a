// The VERIFIABLE steps of a request's timeline (protocol.md 11.6): the winner's PUBLISH of the
// prompt and token ids, the auditors drawn the block after it (and after a challenge), their
// committed and revealed verdicts, and the outcome with any forfeited collateral.
import { addressLink, h, txLink } from '../dom.ts';
import type { Audit, Auditor, Snapshot } from './request-data.ts';

export interface Step {
  readonly name: string;
  readonly done: boolean;
  readonly detail: (Node | string)[];
}

function publishStep(snap: Snapshot): Step {
  const { request: r } = snap;
  if (r?.publish) return { name: 'publish', done: true, detail: ['PUBLISH at height ', String(r.publish.height), ', tx ', txLink(r.publish.txid)] };
  const detail =
    r?.publish_deadline_height != null
      ? `the winner publishes by height ${r.publish_deadline_height}`
      : r?.status === 'EXPIRED'
        ? 'not published: refunded'
        : 'not published yet';
  return { name: 'publish', done: false, detail: [detail] };
}

function auditorsStep(audit: Audit | null): Step {
  if (audit === null) return { name: 'auditors', done: false, detail: ['drawn the block after the PUBLISH'] };
  if (audit.auditors.length === 0) return { name: 'auditors', done: false, detail: [`drawn at the end of height ${audit.draw_height}`] };
  const challenge = audit.challenge
    ? [`; challenged by ${audit.challenge.challenger} at height ${audit.challenge.height} (bond ${audit.challenge.bond.toFixed(8)})`]
    : [];
  return {
    name: 'auditors',
    done: true,
    detail: [
      ...audit.auditors.flatMap((x, i) => [
        i > 0 ? ', ' : '',
        h('span', { class: 'auditor', 'data-round': String(x.round) }, addressLink(x.address)),
      ]),
      ` (drawn at height ${audit.draw_height})`,
      ...challenge,
    ],
  };
}

function verdictOf(x: Auditor): (Node | string)[] {
  if (x.verdict) return [h('span', { class: 'verdict', 'data-verdict': x.verdict }, x.verdict), ' revealed, tx ', txLink(x.reveal_txid!)];
  if (x.committed) return ['committed, tx ', txLink(x.commit_txid!)];
  return ['nothing yet'];
}

function verdictsStep(audit: Audit | null): Step {
  if (audit === null || audit.auditors.length === 0) return { name: 'verdicts', done: false, detail: ['none yet'] };
  const revealed = audit.auditors.filter((x) => x.verdict !== null).length;
  return {
    name: 'verdicts',
    done: revealed > 0 && (revealed === audit.auditors.length || audit.outcome !== null),
    detail: [
      `commits until height ${audit.commit_close}, reveals until ${audit.reveal_deadline}: `,
      ...audit.auditors.flatMap((x, i) => [i > 0 ? '; ' : '', `${x.address} `, ...verdictOf(x)]),
    ],
  };
}

function outcomeStep(snap: Snapshot): Step {
  const { audit, request: r } = snap;
  if (!audit?.outcome) {
    const why = audit
      ? `decided at the end of height ${audit.reveal_deadline}`
      : r?.status === 'EXPIRED'
        ? `EXPIRED: refund ${r.refund_amount?.toFixed(8)}`
        : 'not decided yet';
    return { name: 'outcome', done: r?.status === 'EXPIRED', detail: [why] };
  }
  const forfeit = audit.forfeited > 0 ? `; the winner's collateral ${audit.forfeited.toFixed(8)} is forfeited` : '';
  const refund = r?.refund_amount != null ? `; the requester gets ${r.refund_amount.toFixed(8)}` : '';
  return {
    name: 'outcome',
    done: true,
    detail: [h('span', { id: 'audit-outcome', 'data-outcome': audit.outcome }, audit.outcome), ` (${r?.status ?? ''})${forfeit}${refund}`],
  };
}

export function auditSteps(snap: Snapshot): Step[] {
  return [publishStep(snap), auditorsStep(snap.audit), verdictsStep(snap.audit), outcomeStep(snap)];
}
