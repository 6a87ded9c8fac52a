/**
 * The steps after a request's resolution that VERIFIABLE requests add: publishing the prompt and
 * answer (any request's, signed by nobody), challenging a published answer, and the drawn
 * auditors' verdicts, committed then revealed (as a response is: submitopoiresponsecommit and
 * submitopoiresponse). They exist only with a wallet. The windows are the chain's to decide
 * (-26 with the rule's reason); what the node can tell from its state is -8 here.
 */
import { randomBytes } from 'node:crypto';
import {
  type AuditRecord,
  type AuditorRecord,
  MAX_OPOI_PUBLISH,
  MAX_VERIFIABLE_TOKENS,
  OpoiKind,
  type RequestRecord,
  TASK_VERIFIABLE,
  VERDICT_INVALID,
  VERDICT_NONE,
  VERDICT_VALID,
  actorKey,
  encodeOpoiPayload,
  publishDeadline,
  sha256Hex,
  toHex,
  verdictCommitment,
  verifiableResponseHash,
} from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { JsonValue } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { walletCall, walletOf } from '../../wallet/rpc/common.ts';
import type { OpoiContext } from '../context.ts';
import { uuidOf } from '../json.ts';
import { sendAuditorAction, sendChallenge, sendPublish } from '../wallet-actions.ts';
import { confirmedRequest, invalid, ownActor, parseHash, parseRequestId, sent } from './args.ts';
import { EXAMPLE_HASH, EXAMPLE_MINER, EXAMPLE_UUID, fields } from './help.ts';

const VERDICTS: Readonly<Record<string, number>> = { valid: VERDICT_VALID, invalid: VERDICT_INVALID };

/** token_ids: an array of integers 0..2^32-1, at most MAX_VERIFIABLE_TOKENS. */
function parseTokenIds(value: readonly JsonValue[]): number[] {
  if (value.length > MAX_VERIFIABLE_TOKENS) throw invalid(`token_ids holds at most ${MAX_VERIFIABLE_TOKENS} ids`);
  return value.map((t, i) => {
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t > 0xffffffff)
      throw invalid(`token_ids[${i}] must be an integer from 0 to 4294967295`);
    return t;
  });
}

function parseVerdict(text: string): number {
  const v = VERDICTS[text];
  if (v === undefined) throw invalid('verdict must be valid or invalid');
  return v;
}

export function registerOpoiVerifiableMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;
  const p = params.opoi;

  /** The audit of a request under audit, or -8 naming its status. */
  const auditing = (r: RequestRecord, what: string): AuditRecord => {
    if (r.status !== 'AUDITING') throw invalid(`request is ${r.status}: ${what} only while its published answer is AUDITING`);
    return chain.opoi.audit(r.id)!;
  };

  registry.register({
    name: 'publishopoianswer',
    category: 'Opoi',
    description:
      "Broadcasts a PUBLISH: a resolved request's prompt and its winner's answer, on chain. A VERIFIABLE request must\n" +
      'be published (PUBLISHING, until publish_deadline_height) for its audit to start: the auditors are drawn at the\n' +
      'end of the block after the one holding the PUBLISH; unpublished, it expires and is refunded. An OPEN request\n' +
      'may be published once FULFILLED. The prompt must hash to prompt_hash, and the output (with token_ids for\n' +
      "VERIFIABLE) to the winner's revealed response hash. Anyone may publish (this wallet pays the fee, which grows\n" +
      `with the size: at most ${MAX_OPOI_PUBLISH} bytes of payload).`,
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'prompt', type: 'string', description: 'The prompt text (its UTF-8 SHA-256 is the prompt_hash)' },
      { name: 'output', type: 'string', description: "The winner's answer text" },
      {
        name: 'token_ids',
        type: 'array',
        optional: true,
        description: "The answer's token ids in generation order (VERIFIABLE: required; OPEN: omitted or [])",
      },
    ],
    result: fields(
      '"txid" : "hex"                       (string) The PUBLISH transaction',
      '"request_id" : "str"                 (string) The request id',
      '"bytes" : n                          (numeric) The payload size',
      '"audit_draw_height" : n              (numeric or null) VERIFIABLE: the height whose block draws the auditors if the PUBLISH confirms in the next block',
      '"publish_deadline_height" : n        (numeric or null) VERIFIABLE: the last height the PUBLISH may confirm at',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'What is the capital of France?', 'Paris.', [40, 3681, 13]] }],
    handler: async ([requestId, prompt, output, tokenArg], call) => {
      const wallet = walletOf(ctx, call);
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      const verifiable = r.taskType === TASK_VERIFIABLE;
      if (r.publishTxid !== null) throw invalid(`the answer was published in ${r.publishTxid}`);
      if (r.status !== (verifiable ? 'PUBLISHING' : 'FULFILLED')) {
        throw invalid(
          `request is ${r.status}: ${verifiable ? 'a VERIFIABLE answer is published while PUBLISHING' : 'an OPEN answer is published once FULFILLED'}`,
        );
      }
      const tokens = tokenArg === undefined ? undefined : parseTokenIds(tokenArg);
      if (verifiable && tokens === undefined) throw invalid('token_ids is required for a VERIFIABLE request');
      if (!verifiable && tokens !== undefined && tokens.length > 0)
        throw invalid('token_ids are for VERIFIABLE requests only (an OPEN answer is its text)');
      const promptBytes = Buffer.from(prompt, 'utf8');
      if (sha256Hex(promptBytes) !== r.promptHash) throw invalid("prompt does not hash to the request's prompt_hash");
      const outputBytes = Buffer.from(output, 'utf8');
      const reveal = chain.opoi.commitsOf(r.id).find((c) => c.miner === r.winner)!.reveal!;
      if (verifiable && tokens!.length !== reveal.tokenCount) {
        throw invalid(`token_ids has ${tokens!.length} ids; the winner revealed ${reveal.tokenCount} tokens`);
      }
      const responseHash = verifiable ? toHex(verifiableResponseHash(tokens!, outputBytes)) : sha256Hex(outputBytes);
      if (responseHash !== reveal.responseHash) {
        throw invalid(`output${verifiable ? ' and token_ids do' : ' does'} not hash to the winner's revealed response hash`);
      }
      const payload = {
        kind: OpoiKind.PUBLISH,
        requestId: Buffer.from(r.id, 'hex'),
        prompt: promptBytes,
        tokens: tokens ?? [],
        output: outputBytes,
      } as const;
      let bytes: number;
      try {
        bytes = encodeOpoiPayload(payload).length;
      } catch (e) {
        if (e instanceof RangeError) throw invalid(`prompt, token_ids and output do not fit one PUBLISH: ${e.message}`);
        throw e;
      }
      const txid = await walletCall(() => sent(sendPublish(wallet, payload)));
      return {
        txid,
        request_id: uuidOf(r.id),
        bytes,
        audit_draw_height: verifiable ? chain.height + 2 : null,
        publish_deadline_height: verifiable ? publishDeadline(r, p) : null,
      };
    },
  });

  registry.register({
    name: 'submitopoichallenge',
    category: 'Opoi',
    description:
      'Broadcasts a CHALLENGE of an answer under audit, signed and paid by challenger_address: output 0 holds the\n' +
      "bond in the request's escrow, and quorum + 1 more auditors are drawn at the end of the block after it, with a\n" +
      'whole verdict commit window of their own. The bond comes back if the outcome is invalid (or unaudited);\n' +
      'after a valid one it goes to the auditors that said valid and the winner. One challenge per request, from\n' +
      'the block after the draw until the verdict commit window closes.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'challenger_address', type: 'string', description: 'The wallet address that signs and pays' },
      {
        name: 'bond',
        type: 'amount',
        optional: true,
        description: `In coins, at least the network's challenge bond (${amountToJson(p.challengeBond)}, the default)`,
      },
    ],
    result: fields(
      '"txid" : "hex"              (string) The CHALLENGE transaction (its output 0 is the bond)',
      '"request_id" : "str"        (string) The request id',
      '"challenger" : "str"        (string) The challenger address',
      '"bond" : n                  (numeric) The bond, in coins',
      '"draw_height" : n           (numeric) The height whose block draws the new auditors if the CHALLENGE confirms in the next block',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_MINER] }],
    handler: async ([requestId, address, bondArg], call) => {
      const wallet = walletOf(ctx, call);
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      const a = auditing(r, 'an answer is challenged');
      if (a.challengeTxid !== null) throw invalid(`the answer was already challenged in ${a.challengeTxid}`);
      const bond = bondArg ?? p.challengeBond;
      if (bond < p.challengeBond) throw invalid(`bond must be at least ${amountToJson(p.challengeBond)}`);
      const challenger = ownActor(ctx, wallet, address, 'challenger_address');
      const payload = { kind: OpoiKind.CHALLENGE, requestId: Buffer.from(r.id, 'hex'), challenger } as const;
      const txid = await walletCall(() => sent(sendChallenge(wallet, payload, bond)));
      return { txid, request_id: uuidOf(r.id), challenger: address, bond: amountToJson(bond), draw_height: chain.height + 2 };
    },
  });

  /** The common checks of verdict commit and reveal: an audit, a drawn auditor of this wallet, a verdict. */
  const verdictArgs = (call: Parameters<typeof walletOf>[1], requestId: string, address: string, verdictText: string) => {
    const wallet = walletOf(ctx, call);
    const r = confirmedRequest(ctx, parseRequestId(requestId));
    const a = auditing(r, 'verdicts are sent');
    const verdict = parseVerdict(verdictText);
    const auditor = ownActor(ctx, wallet, address, 'auditor_address');
    const entry: AuditorRecord | undefined = a.auditors.find((x) => x.auditor === actorKey(auditor));
    if (!entry) throw invalid('auditor_address was not drawn to audit this request');
    return { wallet, r, a, verdict, auditor, entry, requestIdBytes: Buffer.from(r.id, 'hex') };
  };

  /** The salt argument (32 bytes hex), -8 otherwise. */
  const parseSalt = (salt: string): Uint8Array => parseHash(salt.toLowerCase(), 'salt');

  registry.register({
    name: 'submitopoiverdictcommit',
    category: 'Opoi',
    description:
      "Broadcasts a drawn auditor's VERDICT_COMMIT: the commitment hides the verdict (valid or invalid) and a random\n" +
      'salt until the reveal. Keep salt_hex: submitopoiverdict needs it once the verdict commit window has closed\n' +
      '(reveal_from_height).',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'auditor_address', type: 'string', description: 'The drawn auditor address of this wallet' },
      { name: 'verdict', type: 'string', description: 'valid or invalid: whether the replay gave the published tokens' },
      { name: 'salt', type: 'string', optional: true, description: '32 bytes of salt, hex (random when omitted)' },
    ],
    result: fields(
      '"txid" : "hex"                (string) The VERDICT_COMMIT transaction',
      '"request_id" : "str"          (string) The request id',
      '"verdict" : "str"             (string) valid or invalid',
      '"salt_hex" : "hex"            (string) The salt to reveal with (keep it)',
      '"commitment" : "hex"          (string) The verdict commitment',
      '"reveal_from_height" : n      (numeric) The first height a reveal may have (a challenge may move it later)',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_MINER, 'valid'] }],
    handler: async ([requestId, address, verdictText, saltArg], call) => {
      const { wallet, r, a, verdict, auditor, entry, requestIdBytes } = verdictArgs(call, requestId, address, verdictText);
      if (entry.commitment !== null) throw invalid(`auditor_address already committed a verdict (${entry.commitTxid})`);
      const salt = saltArg === undefined ? randomBytes(32) : parseSalt(saltArg);
      const commitment = verdictCommitment(requestIdBytes, auditor, verdict, salt);
      const payload = { kind: OpoiKind.VERDICT_COMMIT, requestId: requestIdBytes, auditor, commitment } as const;
      const txid = await walletCall(() => sent(sendAuditorAction(wallet, payload)));
      return {
        txid,
        request_id: uuidOf(r.id),
        verdict: verdictText,
        salt_hex: toHex(salt),
        commitment: toHex(commitment),
        reveal_from_height: a.commitClose + 1,
      };
    },
  });

  registry.register({
    name: 'submitopoiverdict',
    category: 'Opoi',
    description:
      "Broadcasts a drawn auditor's VERDICT_REVEAL, after the verdict commit window has closed and before the audit's\n" +
      'reveal deadline: verdict, salt and auditor must hash to its verdict commitment on chain. The outcome is\n' +
      'decided at the end of the reveal deadline: invalid when more auditors said invalid than valid.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'auditor_address', type: 'string', description: 'The auditor address that committed' },
      { name: 'verdict', type: 'string', description: 'valid or invalid, as committed' },
      { name: 'salt', type: 'string', description: 'The salt_hex submitopoiverdictcommit returned' },
    ],
    result: fields(
      '"txid" : "hex"            (string) The VERDICT_REVEAL transaction',
      '"request_id" : "str"      (string) The request id',
      '"verdict" : "str"         (string) The revealed verdict',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_MINER, 'valid', EXAMPLE_HASH] }],
    handler: async ([requestId, address, verdictText, saltArg], call) => {
      const { wallet, r, verdict, auditor, entry, requestIdBytes } = verdictArgs(call, requestId, address, verdictText);
      const salt = parseSalt(saltArg);
      if (entry.commitment === null) throw invalid('auditor_address has no confirmed verdict commit for this request');
      if (entry.verdict !== VERDICT_NONE) throw invalid(`auditor_address already revealed its verdict (${entry.revealTxid})`);
      if (toHex(verdictCommitment(requestIdBytes, auditor, verdict, salt)) !== entry.commitment) {
        throw invalid('verdict and salt do not match the verdict commitment on-chain');
      }
      const payload = { kind: OpoiKind.VERDICT_REVEAL, requestId: requestIdBytes, auditor, verdict, salt } as const;
      const txid = await walletCall(() => sent(sendAuditorAction(wallet, payload)));
      return { txid, request_id: uuidOf(r.id), verdict: verdictText };
    },
  });
}
