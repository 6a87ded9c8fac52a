/**
 * Everything the OPoI timeline shows about one request in one answer: the node's record, the
 * bridge's submission, the published answer, for a VERIFIABLE request its audit (getopoiaudit:
 * the drawn auditors, their verdicts, the outcome) and, for requests asked through this
 * dashboard, the prompt hand-over. Parts that do not exist yet are null (not errors), so a page following a
 * young request makes no failing calls; a program that is down is named in `down`.
 */
import { RpcError } from '@cs/client';
import type { AskService, PromptState } from '../ask/ask-service.ts';
import { UpstreamDown, type Upstreams } from './upstreams.ts';

/** Core's "not found" code: the request is not confirmed yet, or nothing was published. */
const NOT_FOUND = -5;

export interface RequestSnapshot {
  readonly request: unknown;
  readonly submission: unknown;
  readonly content: unknown;
  readonly audit: unknown;
  readonly asked: PromptState | null;
  readonly down: string[];
}

export async function requestSnapshot(upstreams: Upstreams, asker: AskService, node: number, id: string): Promise<RequestSnapshot> {
  const down: string[] = [];
  const orNull = async <T>(fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof RpcError && e.code === NOT_FOUND) return null;
      if (e instanceof UpstreamDown) {
        down.push(e.message);
        return null;
      }
      throw e;
    }
  };
  const [request, submission, content] = await Promise.all([
    orNull(() => upstreams.call(node, 'getopoirequest', [id])),
    upstreams.config.bridgeUrl
      ? orNull(async () => {
          const r = await upstreams.bridge(`/svc/opoi/submissions/${id}`);
          return r.status === 200 ? (JSON.parse(r.body) as unknown) : null;
        })
      : null,
    orNull(() => upstreams.call(node, 'getopoicontent', [id, 'RESPONSE'])),
  ]);
  // -5 until the PUBLISH confirms; an OPEN request never has one, so it is not asked.
  const verifiable = (request as { task_type?: string } | null)?.task_type === 'VERIFIABLE';
  const audit = verifiable ? await orNull(() => upstreams.call(node, 'getopoiaudit', [id])) : null;
  return { request, submission, content, audit, asked: asker.state(id) ?? null, down };
}
