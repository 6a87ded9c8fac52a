/**
 * The OPoI page's form: the requester's flow of `cs-bridge ask` (docs/bridge.md, "Asking") run by
 * the dashboard server. The REQUEST, OPEN or VERIFIABLE (a registered manifest, an audit quorum
 * and fee), is sent from the first node's wallet (the address `cs-bridge ask` would pick) naming
 * the bridge's OPoI address as executor, as `cs-bridge ask` does, then the prompt is handed to the
 * bridge with the API key added here, retrying the bridge's 404 until the REQUEST confirms. The
 * browser follows the rest through the live `opoi` feed and the read-only endpoints.
 */
import { randomUUID } from 'node:crypto';
import { amountFromValue } from '@cs/runtime/amount';
import { pickRequester, promptHash, RpcTransportError } from '@cs/client';
import type { Logger } from 'pino';
import { UpstreamDown, type Upstreams } from '../upstream/upstreams.ts';

export class AskError extends Error {}

export interface AskInput {
  readonly prompt: string;
  readonly model: string;
  readonly maxTokens: number;
  /** Coins, as a decimal string or number (the node's amount rules). */
  readonly payment: string;
  /** VERIFIABLE: `model` is a manifest id, audited by `quorum` drawn auditors paid `auditFee` coins each. */
  readonly verifiable: { readonly quorum: number; readonly auditFee: string } | null;
}

/** The prompt hand-over as the browser sees it. */
export interface PromptState {
  readonly request_id: string;
  readonly txid: string;
  state: 'waiting' | 'accepted' | 'refused';
  detail: string;
}

const RETRY_MS = 1_000;
/** A REQUEST not confirmed within this long is left alone (the node refunds it when it expires). */
const GIVE_UP_MS = 60 * 60_000;
const MAX_PROMPT_BYTES = 65_536;
/** The chain's bounds for a VERIFIABLE request (protocol.md 11.7: maxAuditQuorum; MAX_VERIFIABLE_TOKENS). */
const MAX_AUDIT_QUORUM = 16;
const MAX_VERIFIABLE_TOKENS = 4096;

function coinsField(name: string, value: unknown): string {
  const text = String(value ?? '');
  try {
    amountFromValue(text);
  } catch (e) {
    throw new AskError(`${name}: ${(e as Error).message}`);
  }
  return text;
}

/** The form's fields checked, or why not. */
export function parseAsk(body: unknown): AskInput {
  if (typeof body !== 'object' || body === null) throw new AskError('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.prompt !== 'string' || b.prompt.trim() === '') throw new AskError('the prompt is empty');
  if (Buffer.byteLength(b.prompt) > MAX_PROMPT_BYTES) throw new AskError(`the prompt is over ${MAX_PROMPT_BYTES} bytes`);
  if (typeof b.model !== 'string' || !/^[\w.:/-]{1,64}$/.test(b.model))
    throw new AskError('model must be a name of 1 to 64 letters, digits or ._:/-');
  const maxTokens = Number(b.max_tokens);
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) throw new AskError('max_tokens must be a positive integer');
  const payment = coinsField('payment', b.payment);
  const taskType = b.task_type ?? 'OPEN';
  if (taskType !== 'OPEN' && taskType !== 'VERIFIABLE') throw new AskError('task_type must be OPEN or VERIFIABLE');
  if (taskType === 'OPEN') return { prompt: b.prompt, model: b.model, maxTokens, payment, verifiable: null };
  if (maxTokens > MAX_VERIFIABLE_TOKENS) throw new AskError(`max_tokens of a VERIFIABLE request is at most ${MAX_VERIFIABLE_TOKENS}`);
  const quorum = Number(b.audit_quorum);
  if (!Number.isSafeInteger(quorum) || quorum < 1 || quorum > MAX_AUDIT_QUORUM)
    throw new AskError(`audit_quorum must be an integer from 1 to ${MAX_AUDIT_QUORUM}`);
  return { prompt: b.prompt, model: b.model, maxTokens, payment, verifiable: { quorum, auditFee: coinsField('audit_fee', b.audit_fee) } };
}

export class AskService {
  private readonly asked = new Map<string, PromptState>();
  private stopped = false;

  constructor(
    private readonly upstreams: Upstreams,
    private readonly log: Logger,
  ) {}

  async ask(input: AskInput): Promise<PromptState> {
    // Fee per token 0: the escrow is the payment and, VERIFIABLE, every auditor's fee.
    const v = input.verifiable;
    const escrow = amountFromValue(input.payment) + (v ? BigInt(v.quorum) * amountFromValue(v.auditFee) : 0n);
    let requester: string | null;
    try {
      requester = await pickRequester(this.upstreams.rpcClient(0), escrow);
    } catch (e) {
      if (e instanceof RpcTransportError)
        throw new UpstreamDown('node', `${this.upstreams.config.nodes[0].name} did not answer JSON-RPC: ${e.message}`);
      throw new AskError((e as Error).message);
    }
    if (requester === null) throw new AskError("no address of the first node's wallet holds enough confirmed coins for the escrow; fund one");
    const executor = await this.bridgeAddress();
    const requestId = randomUUID();
    const r = await this.upstreams.call(0, 'submitopoirequest', [
      requestId,
      input.model,
      promptHash(input.prompt),
      input.maxTokens,
      input.payment,
      requester,
      0,
      v ? 'VERIFIABLE' : 'OPEN',
      0,
      '',
      executor,
      ...(v ? ([v.quorum, v.auditFee] as const) : ([] as const)),
    ]);
    const state: PromptState = { request_id: requestId, txid: r.txid, state: 'waiting', detail: 'waiting for the REQUEST to confirm' };
    this.asked.set(requestId, state);
    this.log.info({ request_id: requestId, txid: r.txid }, 'REQUEST sent for the ask form');
    void this.handOver(state, input.prompt);
    return state;
  }

  /** The bridge's staked address (its /healthz answers 503 while degraded, with the same body). */
  private async bridgeAddress(): Promise<string> {
    const r = await this.upstreams.bridge('/healthz');
    let address: unknown;
    try {
      address = (JSON.parse(r.body) as { opoi_address?: unknown }).opoi_address;
    } catch {
      // not JSON: no address, refused below
    }
    if (typeof address !== 'string') throw new AskError(`the bridge did not say its OPoI address (/healthz answered HTTP ${r.status})`);
    return address;
  }

  state(requestId: string): PromptState | undefined {
    return this.asked.get(requestId);
  }

  stop(): void {
    this.stopped = true;
  }

  private async handOver(state: PromptState, prompt: string): Promise<void> {
    const body = JSON.stringify({ request_id: state.request_id, prompt });
    const deadline = Date.now() + GIVE_UP_MS;
    while (!this.stopped && Date.now() < deadline) {
      try {
        const r = await this.upstreams.bridge('/svc/opoi/prompt', { method: 'POST', body, withKey: true });
        if (r.status === 200) {
          Object.assign(state, { state: 'accepted', detail: 'the bridge has the prompt' });
          return;
        }
        // 404: the REQUEST is not confirmed yet; 429: over the bridge's rate. Both: again later.
        if (r.status !== 404 && r.status !== 429) {
          let why = r.body;
          try {
            why = (JSON.parse(r.body) as { error?: string }).error ?? r.body;
          } catch {
            // not JSON: the body as it came
          }
          Object.assign(state, { state: 'refused', detail: `the bridge refused the prompt (HTTP ${r.status}): ${why}` });
          return;
        }
      } catch (e) {
        state.detail = `waiting: ${(e as Error).message}`;
      }
      await new Promise((r) => setTimeout(r, RETRY_MS).unref());
    }
  }
}
