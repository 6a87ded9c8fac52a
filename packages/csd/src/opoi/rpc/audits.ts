/**
 * The audits of published VERIFIABLE answers: one audit (getopoiaudit), and the audits still open
 * with each drawn auditor's next step (listopoiaudits, which an auditing bridge polls).
 */
import { type AuditRecord, type AuditorRecord, type RequestRecord, VERDICT_NONE, actorKey } from '@cs/consensus';
import type { JsonObject } from '../../format/json-value.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import type { OpoiContext } from '../context.ts';
import { auditedToJson } from '../json.ts';
import { actorArg, confirmedRequest, parseRequestId } from './args.ts';
import { AUDITOR_FIELDS, AUDIT_FIELDS, EXAMPLE_MINER, EXAMPLE_UUID, arrayResult, objectResult } from './help.ts';

/** What the audit view starts with: the request it audits. */
const AUDITED_FIELDS = [
  '"request_id" : "str",           (string) The request id',
  '"status" : "str",               (string) The request\'s status (AUDITING until the outcome)',
  '"model" : "str",                (string) The manifest id the answer is replayed with',
  '"winner" : "str",               (string) The staker whose answer is audited',
  '"publish" : {                   (json object) The PUBLISH of the prompt and answer',
  '  "txid" : "hex",               (string) The PUBLISH transaction',
  '  "height" : n                  (numeric) Its block height',
  '},',
];

const STEP_FIELDS = [
  '"next_step" : "str",            (string) commit, reveal or done (nothing left to do: revealed, or its window passed)',
  '"from_height" : n,              (numeric or null) The first height the step may have (null when done)',
  '"until_height" : n              (numeric or null) The last height the step may have (null when done)',
];

/** An auditor's next step for a transaction in the block at `height` (the next one): windows from consensus audit.ts. */
function nextStep(a: AuditRecord, x: AuditorRecord, height: number): JsonObject {
  const done = { next_step: 'done', from_height: null, until_height: null };
  if (x.verdict !== VERDICT_NONE) return done;
  if (x.commitment === null) {
    // Verdict commits start after the block that drew the auditor's round.
    const drawn = x.round === 0 ? a.drawHeight : a.challengeHeight! + 1;
    return height <= a.commitClose ? { next_step: 'commit', from_height: drawn + 1, until_height: a.commitClose } : done;
  }
  return height <= a.revealDeadline ? { next_step: 'reveal', from_height: a.commitClose + 1, until_height: a.revealDeadline } : done;
}

export function registerOpoiAuditMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain } = ctx;

  registry.register({
    name: 'getopoiaudit',
    category: 'Opoi',
    description:
      'Returns the audit of a VERIFIABLE request whose answer was published: the draw, verdict commit and reveal\n' +
      'windows, the drawn auditors and their verdicts, a challenge and the outcome (the audit getopoirequest shows).\n' +
      'Fails with -5 for an unknown request and for one without an audit (OPEN, or not published yet).',
    params: [{ name: 'request_id', type: 'string', description: 'The request id (a UUID)' }],
    result: objectResult([...AUDITED_FIELDS, ...AUDIT_FIELDS]).join('\n'),
    examples: [{ args: [EXAMPLE_UUID] }],
    handler: async ([requestId]) => {
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      const a = chain.opoi.audit(r.id);
      if (!a)
        throw new RpcError(
          RpcErrorCode.INVALID_ADDRESS_OR_KEY,
          `No audit for this request: it is ${r.status} and has no published VERIFIABLE answer`,
        );
      return auditedToJson(r, a, ctx.params);
    },
  });

  registry.register({
    name: 'listopoiaudits',
    category: 'Opoi',
    description:
      "Lists the audits whose outcome is not decided yet, by publish height, with each drawn auditor's next step for\n" +
      'the next block: commit (submitopoiverdictcommit), reveal (submitopoiverdict) or done. With auditor_address,\n' +
      'only the audits that drew it, with its own next step first.',
    params: [{ name: 'auditor_address', type: 'string', optional: true, description: 'Only audits that drew this address' }],
    result: arrayResult([
      ...AUDITED_FIELDS,
      '"next_step" : "str",            (string, optional) With auditor_address: its next step (as in auditors)',
      '"from_height" : n,              (numeric or null, optional) With auditor_address: the first height of that step',
      '"until_height" : n,             (numeric or null, optional) With auditor_address: the last height of that step',
      ...AUDIT_FIELDS.slice(0, 3),
      '"auditors" : [                  (json array) The drawn auditors, round 0 then round 1, in draw order',
      '  {                             (json object)',
      ...[...AUDITOR_FIELDS.slice(0, -1), '"reveal_txid" : "hex",          (string or null) The VERDICT_REVEAL transaction', ...STEP_FIELDS].map(
        (l) => `    ${l}`,
      ),
      '  },',
      '  ...',
      '],',
      ...AUDIT_FIELDS.slice(AUDIT_FIELDS.findIndex((l) => l.startsWith('"challenge"'))),
    ]),
    examples: [{ args: [] }, { args: [EXAMPLE_MINER] }],
    handler: async ([auditorAddress]) => {
      const only = auditorAddress === undefined ? null : actorKey(actorArg(ctx, auditorAddress, 'auditor_address'));
      const height = chain.height + 1;
      const open: { r: RequestRecord; a: AuditRecord }[] = [];
      for (const r of chain.opoi.requests()) {
        if (r.status !== 'AUDITING') continue;
        const a = chain.opoi.audit(r.id);
        if (a && a.outcome === null && (only === null || a.auditors.some((x) => x.auditor === only))) open.push({ r, a });
      }
      open.sort((x, y) => x.r.publishHeight! - y.r.publishHeight! || (x.r.id < y.r.id ? -1 : 1));
      return open.map(({ r, a }) => {
        const view = auditedToJson(r, a, ctx.params);
        const steps = a.auditors.map((x) => nextStep(a, x, height));
        const mine = only === null ? {} : steps[a.auditors.findIndex((x) => x.auditor === only)];
        return {
          request_id: view.request_id,
          status: view.status,
          model: view.model,
          winner: view.winner,
          publish: view.publish,
          ...mine,
          draw_height: view.draw_height,
          commit_close: view.commit_close,
          reveal_deadline: view.reveal_deadline,
          auditors: (view.auditors as JsonObject[]).map((x, i) => ({ ...x, ...steps[i] })),
          challenge: view.challenge,
          outcome: view.outcome,
          forfeited: view.forfeited,
        };
      });
    },
  });
}
