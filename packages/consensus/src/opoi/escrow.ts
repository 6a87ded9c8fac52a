/**
 * Coins the OPoI rules hold: a request's escrow (and a challenge's bond, in the same form) and a
 * stake's collateral. Both are `<push> OP_DROP OP_1`: script evaluation lets anyone spend them with
 * an empty scriptSig, and the OPoI rules (rules.ts) are what restrict the spend to the outputs the
 * request's outcome or the stake's status dictate. The push names what holds the coin, so a spend
 * is recognised from the coin alone.
 *
 *   escrow:     <"OPOI" ‖ request_id>         OP_DROP OP_1   (23 bytes)
 *   collateral: <"OPOS" ‖ actor type ‖ hash>  OP_DROP OP_1   (28 bytes)
 */
import { Op } from '../script/opcodes.ts';
import { type Actor, ActorType, OPOI_MAGIC, REQUEST_ID_BYTES } from './payload.ts';

export const ESCROW_SCRIPT_LENGTH = 23;
export const COLLATERAL_SCRIPT_LENGTH = 28;
const COLLATERAL_MAGIC = Uint8Array.of(0x4f, 0x50, 0x4f, 0x53); // "OPOS"

function heldScript(magic: Uint8Array, body: Uint8Array): Uint8Array {
  const s = new Uint8Array(body.length + 7);
  s[0] = body.length + 4;
  s.set(magic, 1);
  s.set(body, 5);
  s[s.length - 2] = Op.OP_DROP;
  s[s.length - 1] = Op.OP_1;
  return s;
}

/** The body of a held-coin script of this length and magic, or null. */
function heldBody(script: Uint8Array, length: number, magic: Uint8Array): Uint8Array | null {
  if (script.length !== length || script[0] !== length - 3 || script[length - 2] !== Op.OP_DROP || script[length - 1] !== Op.OP_1) return null;
  for (let i = 0; i < 4; i++) if (script[1 + i] !== magic[i]) return null;
  return script.subarray(5, length - 2);
}

export function escrowScript(requestId: Uint8Array): Uint8Array {
  if (requestId.length !== REQUEST_ID_BYTES) throw new RangeError(`request id must be ${REQUEST_ID_BYTES} bytes`);
  return heldScript(OPOI_MAGIC, requestId);
}

/** The request id of an escrow script, or null for any other script. */
export function escrowRequestId(script: Uint8Array): Uint8Array | null {
  return heldBody(script, ESCROW_SCRIPT_LENGTH, OPOI_MAGIC);
}

/** A stake's collateral output script: only the OPoI rules decide who spends it (release or forfeit). */
export function collateralScript(staker: Actor): Uint8Array {
  const body = new Uint8Array(21);
  body[0] = staker.type;
  body.set(staker.hash, 1);
  return heldScript(COLLATERAL_MAGIC, body);
}

/** The staker a collateral script names, or null for any other script. */
export function collateralActor(script: Uint8Array): Actor | null {
  const body = heldBody(script, COLLATERAL_SCRIPT_LENGTH, COLLATERAL_MAGIC);
  if (body === null || (body[0] !== ActorType.P2WPKH && body[0] !== ActorType.P2PKH)) return null;
  return { type: body[0], hash: body.subarray(1) };
}

/** Whether the OPoI rules hold coins of this script (escrow or collateral): spent with an empty scriptSig. */
export function isHeldScript(script: Uint8Array): boolean {
  return escrowRequestId(script) !== null || collateralActor(script) !== null;
}
