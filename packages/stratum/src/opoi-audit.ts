/**
 * The audit messages between a bridge and a miner (docs/miner.md, "The OPoI messages"): opoi.audit
 * hands a miner that holds a manifest's file a published (or about to be committed) answer to
 * replay, and opoi.submit_audit brings back its verdict. Ours: the reference system has auditors
 * but no stratum shape for them.
 */
import { toHex } from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';
import { bad, hexBytes, paramObject, positiveInteger, requestId, tokenIds } from './opoi-fields.ts';
import { opoiManifestJson, parseOpoiManifest, type OpoiManifest } from './opoi-manifest.ts';

/** The most answer tokens a VERIFIABLE request may have (its max_tokens, docs/rpc.md). */
export const OPOI_MAX_VERIFIABLE_TOKENS = 4096;
/** The longest prompt or answer text an audit carries: what a PUBLISH can hold. */
const MAX_AUDIT_TEXT_BYTES = 80_000;
const AUDIT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// opoi.audit (bridge → miner, notification with id null).

export interface OpoiAuditTask {
  /** The bridge's name for this audit, echoed by opoi.submit_audit: 1 to 64 of [A-Za-z0-9._:-]. */
  readonly auditId: string;
  readonly requestId: string;
  readonly manifest: OpoiManifest;
  readonly prompt: Uint8Array;
  /** The answer's token ids, the end-of-generation token left out. */
  readonly tokenIds: readonly number[];
  /** The answer's text, which must be what the token ids detokenize to. */
  readonly text: Uint8Array;
  /** The request's max_tokens: an answer shorter than it must stop at an end-of-generation token. */
  readonly maxTokens: number;
}

/** opoi.audit [{audit_id, request_id, manifest, prompt_hex, token_ids, text_hex, max_tokens}]. */
export function opoiAuditParams(t: OpoiAuditTask): [Record<string, unknown>] {
  return [
    {
      audit_id: t.auditId,
      request_id: t.requestId,
      manifest: opoiManifestJson(t.manifest),
      prompt_hex: toHex(t.prompt),
      token_ids: [...t.tokenIds],
      text_hex: toHex(t.text),
      max_tokens: t.maxTokens,
    },
  ];
}

export function encodeOpoiAudit(t: OpoiAuditTask): string {
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'opoi.audit', params: opoiAuditParams(t), id: null })}\n`;
}

/** An opoi.audit that cannot be taken; `auditId` is set when it had a readable one, to report the failure. */
export class OpoiAuditError extends StratumError {
  constructor(
    readonly auditId: string | null,
    readonly requestId: string | null,
    message: string,
  ) {
    super(StratumErrorCode.OTHER, message);
  }
}

function auditId(o: Record<string, unknown>): string {
  if (typeof o.audit_id !== 'string' || !AUDIT_ID.test(o.audit_id)) throw bad('audit_id must be 1 to 64 of A-Z a-z 0-9 . _ : -');
  return o.audit_id;
}

export function parseOpoiAudit(params: readonly unknown[]): OpoiAuditTask {
  let id: string | null = null;
  let request: string | null = null;
  try {
    const o = paramObject('opoi.audit', params);
    id = auditId(o);
    request = requestId(o);
    const maxTokens = positiveInteger(o, 'max_tokens', OPOI_MAX_VERIFIABLE_TOKENS);
    if (maxTokens === null) throw bad('max_tokens must be a positive integer');
    const tokens = tokenIds(o, 'token_ids', maxTokens);
    return {
      auditId: id,
      requestId: request,
      manifest: parseOpoiManifest(o.manifest),
      prompt: hexBytes(o, 'prompt_hex', MAX_AUDIT_TEXT_BYTES),
      tokenIds: tokens,
      text: hexBytes(o, 'text_hex', MAX_AUDIT_TEXT_BYTES),
      maxTokens,
    };
  } catch (e) {
    throw new OpoiAuditError(id, request, (e as Error).message);
  }
}

// opoi.submit_audit (miner → bridge, request). The bridge answers {accepted: true} or an error array:
// 20 malformed / unknown audit / duplicate, 24 unauthorized, 25 not sent to this connection.

/** valid / invalid as the chain's verdicts; failed = no verdict (the replay could not run). */
export type OpoiAuditVerdict = 'valid' | 'invalid' | 'failed';
const VERDICTS: readonly OpoiAuditVerdict[] = ['valid', 'invalid', 'failed'];

/** The logits that decided an invalid verdict at its position. */
export interface OpoiAuditEvidence {
  /** The token the answer claims there; null when the answer ended early (the stop check). */
  readonly claimedToken: number | null;
  readonly claimedLogit: number | null;
  /** The model's argmax there and its logit. */
  readonly argmaxToken: number;
  readonly argmaxLogit: number;
}

export interface OpoiAuditReport {
  readonly auditId: string;
  readonly requestId: string;
  readonly verdict: OpoiAuditVerdict;
  /**
   * invalid: the first failing position, an index into the token ids; the token count itself
   * when the stop fails (an answer shorter than max_tokens without an end-of-generation argmax
   * after it); null when the text is not what the ids detokenize to, or for valid and failed.
   */
  readonly position: number | null;
  readonly evidence: OpoiAuditEvidence | null;
  /** For logs: what failed, at most 512 characters. */
  readonly reason: string;
}

export function opoiSubmitAuditParams(r: OpoiAuditReport): [Record<string, unknown>] {
  const o: Record<string, unknown> = { audit_id: r.auditId, request_id: r.requestId, verdict: r.verdict, reason: r.reason.slice(0, 512) };
  if (r.position !== null) o.position = r.position;
  if (r.evidence !== null)
    o.evidence = {
      claimed_token: r.evidence.claimedToken,
      claimed_logit: r.evidence.claimedLogit,
      argmax_token: r.evidence.argmaxToken,
      argmax_logit: r.evidence.argmaxLogit,
    };
  return [o];
}

const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function parseOpoiSubmitAudit(params: readonly unknown[]): OpoiAuditReport {
  const o = paramObject('opoi.submit_audit', params);
  const id = auditId(o);
  const request = requestId(o);
  if (!VERDICTS.includes(o.verdict as OpoiAuditVerdict)) throw bad(`verdict must be one of ${VERDICTS.join(', ')}`);
  const position = o.position === undefined || o.position === null ? null : o.position;
  if (position !== null && (!Number.isSafeInteger(position) || (position as number) < 0 || (position as number) > OPOI_MAX_VERIFIABLE_TOKENS))
    throw bad(`position must be an integer from 0 to ${OPOI_MAX_VERIFIABLE_TOKENS}`);
  let evidence: OpoiAuditEvidence | null = null;
  if (typeof o.evidence === 'object' && o.evidence !== null) {
    const e = o.evidence as Record<string, unknown>;
    const argmaxToken = e.argmax_token;
    const argmaxLogit = finiteOrNull(e.argmax_logit);
    if (!Number.isSafeInteger(argmaxToken) || argmaxLogit === null) throw bad('evidence needs argmax_token and argmax_logit');
    evidence = {
      claimedToken: Number.isSafeInteger(e.claimed_token) ? (e.claimed_token as number) : null,
      claimedLogit: finiteOrNull(e.claimed_logit),
      argmaxToken: argmaxToken as number,
      argmaxLogit,
    };
  }
  return {
    auditId: id,
    requestId: request,
    verdict: o.verdict as OpoiAuditVerdict,
    position: position as number | null,
    evidence,
    reason: typeof o.reason === 'string' ? o.reason.slice(0, 512) : '',
  };
}
