/**
 * The escrow output of a REQUEST: `<"OPOI" ‖ request_id> OP_DROP OP_1`. Script evaluation lets
 * anyone spend it with an empty scriptSig; the OPoI rules (rules.ts) are what restrict the spend to
 * the one payout the request's outcome dictates. The request id inside makes the coin name its
 * request, so a spend is recognised from the coin alone.
 */
import { Op } from '../script/opcodes.ts';
import { OPOI_MAGIC, REQUEST_ID_BYTES } from './payload.ts';

export const ESCROW_SCRIPT_LENGTH = 23;

export function escrowScript(requestId: Uint8Array): Uint8Array {
  if (requestId.length !== REQUEST_ID_BYTES) throw new RangeError(`request id must be ${REQUEST_ID_BYTES} bytes`);
  const s = new Uint8Array(ESCROW_SCRIPT_LENGTH);
  s[0] = 20;
  s.set(OPOI_MAGIC, 1);
  s.set(requestId, 5);
  s[21] = Op.OP_DROP;
  s[22] = Op.OP_1;
  return s;
}

/** The request id of an escrow script, or null for any other script. */
export function escrowRequestId(script: Uint8Array): Uint8Array | null {
  if (script.length !== ESCROW_SCRIPT_LENGTH || script[0] !== 20 || script[21] !== Op.OP_DROP || script[22] !== Op.OP_1) return null;
  for (let i = 0; i < 4; i++) if (script[1 + i] !== OPOI_MAGIC[i]) return null;
  return script.subarray(5, 21);
}
