/**
 * The OPoI payload: the typed fields an OPoI transaction carries in one OP_RETURN output.
 *
 *   OP_RETURN <push: "OPOI" | version u8 | kind u8 | fields of the kind>
 *
 * The fields are not signed separately: the acting address must sign one of the transaction's
 * inputs with SIGHASH_ALL (rules.ts), and that signature covers every output, the payload included.
 * Layouts per kind are in docs/protocol.md (OPoI, payload).
 */
import { isUtf8 } from 'node:buffer';
import { DecodeError } from '../encoding/errors.ts';
import { Reader } from '../encoding/reader.ts';
import { Writer } from '../encoding/writer.ts';
import { Op } from '../script/opcodes.ts';
import { nullDataScript } from '../script/standard.ts';
import type { Transaction } from '../primitives/tx.ts';

export const OPOI_MAGIC = Uint8Array.of(0x4f, 0x50, 0x4f, 0x49); // "OPOI"
export const OPOI_VERSION = 1;
/**
 * Largest payload (the push after OP_RETURN) of every kind but PUBLISH. The largest STAKE
 * (128-character model id and endpoint, 8 served manifests of 64 characters) takes 806 bytes; 256
 * did not even hold a STAKE with both texts at their bound (285).
 */
export const MAX_OPOI_PAYLOAD = 1024;
/**
 * Largest PUBLISH payload: the prompt, the token ids and the text of an answer. 80,000 bytes keep a
 * publish inside a standard transaction (400,000 weight units) with room for its inputs.
 */
export const MAX_OPOI_PUBLISH = 80_000;
/** Largest max_tokens of a VERIFIABLE request: every token id is published, 4 bytes each. */
export const MAX_VERIFIABLE_TOKENS = 4096;
export const MAX_MODEL_NAME = 64;
export const MAX_TASK_CLASS = 32;
export const MAX_STAKE_TEXT = 128;
/** Manifests one STAKE may declare it serves. */
export const MAX_STAKE_MANIFESTS = 8;

export enum OpoiKind {
  REQUEST = 1,
  COMMIT = 2,
  REVEAL = 3,
  STAKE = 4,
  RENEW = 5,
  UNSTAKE = 6,
  MANIFEST = 7,
  PUBLISH = 8,
  CHALLENGE = 9,
  VERDICT_COMMIT = 10,
  VERDICT_REVEAL = 11,
}

/**
 * The address acting in a payload: a key hash and how it is paid (P2WPKH or P2PKH). Written as
 * one type byte then the 20-byte hash; its hex form (42 digits) keys stakes and commits.
 */
export interface Actor {
  readonly type: ActorType;
  readonly hash: Uint8Array;
}
export enum ActorType {
  P2WPKH = 0,
  P2PKH = 1,
}

/** A request id is a UUID's 16 bytes. */
export const REQUEST_ID_BYTES = 16;

export const TASK_OPEN = 0;
export const TASK_VERIFIABLE = 1;

export interface RequestPayload {
  readonly kind: OpoiKind.REQUEST;
  /** 16 bytes (a UUID). */
  readonly requestId: Uint8Array;
  readonly requester: Actor;
  /** SHA-256 of the prompt text. */
  readonly promptHash: Uint8Array;
  readonly maxTokens: number;
  readonly payment: bigint;
  readonly feePerToken: bigint;
  readonly promptTokenCount: number;
  readonly taskType: number;
  readonly model: string;
  readonly taskClass: string;
  /** VERIFIABLE only (absent for OPEN, not encoded): auditors drawn after the publish. */
  readonly auditQuorum?: number;
  /** VERIFIABLE only: what the escrow holds for each auditor of the quorum. */
  readonly auditFee?: bigint;
  /**
   * The one staker allowed to COMMIT, when the requester names one. Encoded as a trailing actor,
   * absent when there is none, so a REQUEST without it has the bytes it had before the field.
   */
  readonly executor?: Actor;
}

export interface CommitPayload {
  readonly kind: OpoiKind.COMMIT;
  readonly requestId: Uint8Array;
  readonly miner: Actor;
  /** commitmentHash(requestId, miner, responseHash, tokenCount, salt). */
  readonly commitment: Uint8Array;
}

export interface RevealPayload {
  readonly kind: OpoiKind.REVEAL;
  readonly requestId: Uint8Array;
  readonly miner: Actor;
  /** SHA-256 of the response bytes. */
  readonly responseHash: Uint8Array;
  readonly tokenCount: number;
  readonly salt: Uint8Array;
}

export interface StakePayload {
  readonly kind: OpoiKind.STAKE;
  readonly miner: Actor;
  readonly modelId: string;
  readonly endpoint: string;
  /**
   * The registered manifests (model ids) the staker serves, when it declares any: a trailing
   * count byte (1..MAX_STAKE_MANIFESTS) and the names, absent when none, so that a STAKE without
   * them keeps its bytes.
   */
  readonly serves?: readonly string[];
}

/** The only decoding rule so far: greedy (argmax) decoding, docs/protocol.md (model manifests). */
export const DECODING_GREEDY = 0;
/** How the prompt's leading BOS token is decided (the low two bits of a manifest's flags). */
export enum BosRule {
  /** As the GGUF's metadata says (tokenizer.ggml.add_bos_token, llama.cpp's default without it). */
  METADATA = 0,
  NEVER = 1,
  ALWAYS = 2,
}
export const MANIFEST_BOS_MASK = 0x03;
/** Special-token text in the prompt is tokenized as those special tokens (llama.cpp's parse_special). */
export const MANIFEST_PARSE_SPECIAL = 0x04;
/** A chat template wraps the prompt; its SHA-256 follows the flags. */
export const MANIFEST_TEMPLATE = 0x08;
export const MANIFEST_KNOWN_FLAGS = MANIFEST_BOS_MASK | MANIFEST_PARSE_SPECIAL | MANIFEST_TEMPLATE;
/** A manifest's tolerance counts logits in units of 2^-16. */
export const TOLERANCE_ONE_LOGIT = 65536;

/** A model manifest: what an auditor needs to replay an answer exactly (immutable once registered). */
export interface ManifestPayload {
  readonly kind: OpoiKind.MANIFEST;
  readonly registrant: Actor;
  readonly modelId: string;
  /** SHA-256 of the exact GGUF file. */
  readonly ggufSha256: Uint8Array;
  readonly ggufSize: bigint;
  readonly decoding: number;
  /** BOS rule, parse-special and template bits (MANIFEST_* above). */
  readonly flags: number;
  /** SHA-256 of the chat template text, present exactly when flags has MANIFEST_TEMPLATE. */
  readonly templateHash?: Uint8Array;
  /** Largest accepted gap between the argmax logit and the claimed token's, in 2^-16 logit. */
  readonly tolerance: number;
}

/** The request's prompt and answer, on chain: whoever sends it (no actor signs it). */
export interface PublishPayload {
  readonly kind: OpoiKind.PUBLISH;
  readonly requestId: Uint8Array;
  /** The prompt's UTF-8 bytes: SHA-256 of them is the request's prompt_hash. */
  readonly prompt: Uint8Array;
  /** The answer's token ids (VERIFIABLE; empty for OPEN), in generation order. */
  readonly tokens: readonly number[];
  /** The answer's UTF-8 text. */
  readonly output: Uint8Array;
}

/** A challenge of a published VERIFIABLE answer; output 0 holds the bond in the request's escrow form. */
export interface ChallengePayload {
  readonly kind: OpoiKind.CHALLENGE;
  readonly requestId: Uint8Array;
  readonly challenger: Actor;
}

export const VERDICT_VALID = 1;
export const VERDICT_INVALID = 2;

export interface VerdictCommitPayload {
  readonly kind: OpoiKind.VERDICT_COMMIT;
  readonly requestId: Uint8Array;
  readonly auditor: Actor;
  /** verdictCommitment(requestId, auditor, verdict, salt). */
  readonly commitment: Uint8Array;
}

export interface VerdictRevealPayload {
  readonly kind: OpoiKind.VERDICT_REVEAL;
  readonly requestId: Uint8Array;
  readonly auditor: Actor;
  readonly verdict: number;
  readonly salt: Uint8Array;
}

export interface StakeActionPayload {
  readonly kind: OpoiKind.RENEW | OpoiKind.UNSTAKE;
  readonly miner: Actor;
}

export type OpoiPayload =
  | RequestPayload
  | CommitPayload
  | RevealPayload
  | StakePayload
  | StakeActionPayload
  | ManifestPayload
  | PublishPayload
  | ChallengePayload
  | VerdictCommitPayload
  | VerdictRevealPayload;

// A model name is a plain identifier (OPEN tasks) such as "llama3.2:1b" or "org/model-7b.Q4".
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/+-]*$/;

function writeActor(w: Writer, a: Actor): void {
  w.u8(a.type).bytes(a.hash);
}

function readActor(r: Reader): Actor {
  const type = r.u8();
  if (type !== ActorType.P2WPKH && type !== ActorType.P2PKH) throw new DecodeError('invalid', `unknown OPoI actor type ${type}`);
  return { type, hash: r.bytes(20, 'actor key hash') };
}

function readText(r: Reader, max: number, what: string): string {
  const bytes = r.varBytes(max, what);
  // Printable ASCII only: names end up in logs, JSON and terminals.
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] < 0x20 || bytes[i] > 0x7e) throw new DecodeError('invalid', `${what} must be printable ASCII`);
  }
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

function writeText(w: Writer, text: string): void {
  w.varBytes(new TextEncoder().encode(text));
}

export function isValidModelName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_MODEL_NAME && MODEL_NAME.test(name);
}

/** The payload bytes (the push after OP_RETURN). */
export function encodeOpoiPayload(p: OpoiPayload): Uint8Array {
  const w = new Writer(128);
  w.bytes(OPOI_MAGIC).u8(OPOI_VERSION).u8(p.kind);
  switch (p.kind) {
    case OpoiKind.REQUEST:
      w.bytes(p.requestId);
      writeActor(w, p.requester);
      w.bytes(p.promptHash).u32le(p.maxTokens).u64le(p.payment).u64le(p.feePerToken).u32le(p.promptTokenCount).u8(p.taskType);
      writeText(w, p.model);
      writeText(w, p.taskClass);
      if (p.taskType === TASK_VERIFIABLE) {
        if (p.auditQuorum === undefined || p.auditFee === undefined) throw new RangeError('a VERIFIABLE request names its audit quorum and fee');
        w.u8(p.auditQuorum).u64le(p.auditFee);
      }
      if (p.executor) writeActor(w, p.executor);
      break;
    case OpoiKind.COMMIT:
      w.bytes(p.requestId);
      writeActor(w, p.miner);
      w.bytes(p.commitment);
      break;
    case OpoiKind.REVEAL:
      w.bytes(p.requestId);
      writeActor(w, p.miner);
      w.bytes(p.responseHash).u32le(p.tokenCount).bytes(p.salt);
      break;
    case OpoiKind.STAKE:
      writeActor(w, p.miner);
      writeText(w, p.modelId);
      writeText(w, p.endpoint);
      if (p.serves && p.serves.length > 0) {
        w.u8(p.serves.length);
        for (const id of p.serves) writeText(w, id);
      }
      break;
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE:
      writeActor(w, p.miner);
      break;
    case OpoiKind.MANIFEST:
      writeActor(w, p.registrant);
      writeText(w, p.modelId);
      w.bytes(p.ggufSha256).u64le(p.ggufSize).u8(p.decoding).u8(p.flags);
      if (((p.flags & MANIFEST_TEMPLATE) !== 0) !== (p.templateHash !== undefined))
        throw new RangeError('a template hash goes with the template flag');
      if (p.templateHash) w.bytes(p.templateHash);
      w.u32le(p.tolerance);
      break;
    case OpoiKind.PUBLISH:
      // What the decoder refuses is not encoded either.
      if (p.tokens.length > MAX_VERIFIABLE_TOKENS) throw new RangeError(`a PUBLISH carries at most ${MAX_VERIFIABLE_TOKENS} token ids`);
      if (!isUtf8(p.prompt) || !isUtf8(p.output)) throw new RangeError('published texts are UTF-8');
      w.bytes(p.requestId).varBytes(p.prompt).compactSize(p.tokens.length);
      for (const t of p.tokens) w.u32le(t);
      w.varBytes(p.output);
      break;
    case OpoiKind.CHALLENGE:
      w.bytes(p.requestId);
      writeActor(w, p.challenger);
      break;
    case OpoiKind.VERDICT_COMMIT:
      w.bytes(p.requestId);
      writeActor(w, p.auditor);
      w.bytes(p.commitment);
      break;
    case OpoiKind.VERDICT_REVEAL:
      w.bytes(p.requestId);
      writeActor(w, p.auditor);
      w.u8(p.verdict).bytes(p.salt);
      break;
  }
  const bytes = w.finish();
  const max = maxPayload(p.kind);
  if (bytes.length > max) throw new RangeError(`OPoI payload of ${bytes.length} bytes exceeds ${max}`);
  return bytes;
}

/** The OP_RETURN output script carrying a payload. */
export function opoiPayloadScript(p: OpoiPayload): Uint8Array {
  return nullDataScript(encodeOpoiPayload(p));
}

const maxPayload = (kind: OpoiKind) => (kind === OpoiKind.PUBLISH ? MAX_OPOI_PUBLISH : MAX_OPOI_PAYLOAD);

/** Published texts are UTF-8 (prompts and answers are free text, unlike names). */
function readUtf8(r: Reader, what: string): Uint8Array {
  const bytes = r.varBytes(MAX_OPOI_PUBLISH, what);
  if (!isUtf8(bytes)) throw new DecodeError('invalid', `${what} is not UTF-8`);
  return bytes;
}

/** Decodes payload bytes; a DecodeError for anything malformed, including trailing bytes. */
export function decodeOpoiPayload(bytes: Uint8Array): OpoiPayload {
  if (bytes.length > MAX_OPOI_PUBLISH) throw new DecodeError('oversize', `OPoI payload of ${bytes.length} bytes exceeds ${MAX_OPOI_PUBLISH}`);
  if (bytes.length > MAX_OPOI_PAYLOAD && bytes[5] !== OpoiKind.PUBLISH)
    throw new DecodeError('oversize', `OPoI payload of ${bytes.length} bytes exceeds ${MAX_OPOI_PAYLOAD}`);
  const r = new Reader(bytes);
  const magic = r.bytes(4, 'magic');
  if (magic.some((b, i) => b !== OPOI_MAGIC[i])) throw new DecodeError('invalid', 'not an OPoI payload');
  const version = r.u8();
  if (version !== OPOI_VERSION) throw new DecodeError('invalid', `unknown OPoI payload version ${version}`);
  const kind = r.u8();
  let p: OpoiPayload;
  switch (kind) {
    case OpoiKind.REQUEST: {
      const requestId = r.bytes(REQUEST_ID_BYTES, 'request id');
      const requester = readActor(r);
      const promptHash = r.bytes(32, 'prompt hash');
      const maxTokens = r.u32le();
      const payment = r.u64le();
      const feePerToken = r.u64le();
      const promptTokenCount = r.u32le();
      const taskType = r.u8();
      const model = readText(r, MAX_MODEL_NAME, 'model');
      const taskClass = readText(r, MAX_TASK_CLASS, 'task class');
      p = { kind, requestId, requester, promptHash, maxTokens, payment, feePerToken, promptTokenCount, taskType, model, taskClass };
      if (taskType === TASK_VERIFIABLE) p = { ...p, auditQuorum: r.u8(), auditFee: r.u64le() };
      // Anything after the task class is the executor: exactly one actor, or r.end() below refuses it.
      if (r.remaining > 0) p = { ...p, executor: readActor(r) };
      break;
    }
    case OpoiKind.COMMIT:
      p = { kind, requestId: r.bytes(REQUEST_ID_BYTES, 'request id'), miner: readActor(r), commitment: r.bytes(32, 'commitment') };
      break;
    case OpoiKind.REVEAL:
      p = {
        kind,
        requestId: r.bytes(REQUEST_ID_BYTES, 'request id'),
        miner: readActor(r),
        responseHash: r.bytes(32, 'response hash'),
        tokenCount: r.u32le(),
        salt: r.bytes(32, 'salt'),
      };
      break;
    case OpoiKind.STAKE: {
      p = { kind, miner: readActor(r), modelId: readText(r, MAX_STAKE_TEXT, 'model id'), endpoint: readText(r, MAX_STAKE_TEXT, 'endpoint') };
      if (r.remaining > 0) {
        // A count of 0 would be a second encoding of "serves none", which is the absent list.
        const count = r.u8();
        if (count < 1 || count > MAX_STAKE_MANIFESTS)
          throw new DecodeError('invalid', `a STAKE serves 1..${MAX_STAKE_MANIFESTS} manifests, not ${count}`);
        const serves: string[] = [];
        for (let i = 0; i < count; i++) serves.push(readText(r, MAX_MODEL_NAME, 'served model id'));
        p = { ...p, serves };
      }
      break;
    }
    case OpoiKind.MANIFEST: {
      const registrant = readActor(r);
      const modelId = readText(r, MAX_MODEL_NAME, 'model id');
      const ggufSha256 = r.bytes(32, 'GGUF SHA-256');
      const ggufSize = r.u64le();
      const decoding = r.u8();
      const flags = r.u8();
      const templateHash = flags & MANIFEST_TEMPLATE ? r.bytes(32, 'template hash') : undefined;
      p = { kind, registrant, modelId, ggufSha256, ggufSize, decoding, flags, ...(templateHash ? { templateHash } : {}), tolerance: r.u32le() };
      break;
    }
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE:
      p = { kind, miner: readActor(r) };
      break;
    case OpoiKind.PUBLISH: {
      const requestId = r.bytes(REQUEST_ID_BYTES, 'request id');
      const prompt = readUtf8(r, 'prompt');
      const count = r.compactSize(MAX_VERIFIABLE_TOKENS);
      const tokens: number[] = [];
      for (let i = 0; i < count; i++) tokens.push(r.u32le());
      p = { kind, requestId, prompt, tokens, output: readUtf8(r, 'output') };
      break;
    }
    case OpoiKind.CHALLENGE:
      p = { kind, requestId: r.bytes(REQUEST_ID_BYTES, 'request id'), challenger: readActor(r) };
      break;
    case OpoiKind.VERDICT_COMMIT:
      p = { kind, requestId: r.bytes(REQUEST_ID_BYTES, 'request id'), auditor: readActor(r), commitment: r.bytes(32, 'commitment') };
      break;
    case OpoiKind.VERDICT_REVEAL:
      p = { kind, requestId: r.bytes(REQUEST_ID_BYTES, 'request id'), auditor: readActor(r), verdict: r.u8(), salt: r.bytes(32, 'salt') };
      break;
    default:
      throw new DecodeError('invalid', `unknown OPoI payload kind ${kind}`);
  }
  r.end('OPoI payload');
  return p;
}

/**
 * The payload bytes of an output script when it is `OP_RETURN <one push starting with "OPOI">`,
 * else null. Cheap on ordinary outputs: the first byte rules out all but OP_RETURN.
 */
export function opoiPayloadBytes(script: Uint8Array): Uint8Array | null {
  if (script.length < 6 || script[0] !== Op.OP_RETURN) return null;
  // The one push after OP_RETURN, read in place: every transaction of every block is asked.
  const op = script[1];
  let start: number;
  let length: number;
  if (op < Op.OP_PUSHDATA1) [start, length] = [2, op];
  else if (op === Op.OP_PUSHDATA1) [start, length] = [3, script[2]];
  else if (op === Op.OP_PUSHDATA2) [start, length] = [4, script[2] | (script[3] << 8)];
  else if (op === Op.OP_PUSHDATA4) [start, length] = [6, (script[2] | (script[3] << 8) | (script[4] << 16) | (script[5] << 24)) >>> 0];
  else return null;
  if (start + length !== script.length || length < 4) return null;
  if (
    script[start] !== OPOI_MAGIC[0] ||
    script[start + 1] !== OPOI_MAGIC[1] ||
    script[start + 2] !== OPOI_MAGIC[2] ||
    script[start + 3] !== OPOI_MAGIC[3]
  ) {
    return null;
  }
  return script.subarray(start, script.length);
}

/** The index of the transaction's OPoI payload output, -1 without one, -2 with more than one. */
export function opoiPayloadIndex(tx: Transaction): number {
  let found = -1;
  for (let i = 0; i < tx.outputs.length; i++) {
    if (opoiPayloadBytes(tx.outputs[i].scriptPubKey) === null) continue;
    if (found !== -1) return -2;
    found = i;
  }
  return found;
}
