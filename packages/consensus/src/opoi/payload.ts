/**
 * The OPoI payload: the typed fields an OPoI transaction carries in one OP_RETURN output.
 *
 *   OP_RETURN <push: "OPOI" | version u8 | kind u8 | fields of the kind>
 *
 * The fields are not signed separately: the acting address must sign one of the transaction's
 * inputs with SIGHASH_ALL (rules.ts), and that signature covers every output, the payload included.
 * Layouts per kind are in docs/protocol.md (OPoI, payload).
 */
import { DecodeError } from '../encoding/errors.ts';
import { Reader } from '../encoding/reader.ts';
import { Writer } from '../encoding/writer.ts';
import { Op } from '../script/opcodes.ts';
import { nullDataScript } from '../script/standard.ts';
import type { Transaction } from '../primitives/tx.ts';

export const OPOI_MAGIC = Uint8Array.of(0x4f, 0x50, 0x4f, 0x49); // "OPOI"
export const OPOI_VERSION = 1;
/** Largest payload (the push after OP_RETURN): a REQUEST with a 64-byte model, a 32-byte class and an executor takes 219. */
export const MAX_OPOI_PAYLOAD = 256;
export const MAX_MODEL_NAME = 64;
export const MAX_TASK_CLASS = 32;
export const MAX_STAKE_TEXT = 128;

export enum OpoiKind {
  REQUEST = 1,
  COMMIT = 2,
  REVEAL = 3,
  STAKE = 4,
  RENEW = 5,
  UNSTAKE = 6,
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
}

export interface StakeActionPayload {
  readonly kind: OpoiKind.RENEW | OpoiKind.UNSTAKE;
  readonly miner: Actor;
}

export type OpoiPayload = RequestPayload | CommitPayload | RevealPayload | StakePayload | StakeActionPayload;

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
      break;
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE:
      writeActor(w, p.miner);
      break;
  }
  const bytes = w.finish();
  if (bytes.length > MAX_OPOI_PAYLOAD) throw new RangeError(`OPoI payload of ${bytes.length} bytes exceeds ${MAX_OPOI_PAYLOAD}`);
  return bytes;
}

/** The OP_RETURN output script carrying a payload. */
export function opoiPayloadScript(p: OpoiPayload): Uint8Array {
  return nullDataScript(encodeOpoiPayload(p));
}

/** Decodes payload bytes; a DecodeError for anything malformed, including trailing bytes. */
export function decodeOpoiPayload(bytes: Uint8Array): OpoiPayload {
  if (bytes.length > MAX_OPOI_PAYLOAD) throw new DecodeError('oversize', `OPoI payload of ${bytes.length} bytes exceeds ${MAX_OPOI_PAYLOAD}`);
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
    case OpoiKind.STAKE:
      p = { kind, miner: readActor(r), modelId: readText(r, MAX_STAKE_TEXT, 'model id'), endpoint: readText(r, MAX_STAKE_TEXT, 'endpoint') };
      break;
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE:
      p = { kind, miner: readActor(r) };
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
