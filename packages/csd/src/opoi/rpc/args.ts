/** Checking the OPoI methods' arguments, each failure naming its field, and turning a refused send into Core's error. */
import { type Actor, DecodeError, type RequestRecord, fromHex, requestIdHexFromUuid } from '@cs/consensus';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import { broadcastError } from '../../rpc/methods/rawtransactions/submit.ts';
import { parseAddress, type walletOf } from '../../wallet/rpc/common.ts';
import type { SendOutcome } from '../../wallet/send.ts';
import type { OpoiContext } from '../context.ts';
import { actorOf } from '../wallet-actions.ts';

const HEX64 = /^[0-9a-f]{64}$/;

export function invalid(message: string): RpcError {
  return new RpcError(RpcErrorCode.INVALID_PARAMETER, message);
}

/** 32 hex digits of a UUID argument, or -8 naming the field. */
export function parseRequestId(value: string): string {
  try {
    return requestIdHexFromUuid(value);
  } catch (e) {
    if (e instanceof DecodeError) throw invalid(`request_id must be a UUID (8-4-4-4-12 hex digits), not '${value}'`);
    throw e;
  }
}

/** A SHA-256 in lower-case hex, or -8 naming the field. */
export function parseHash(value: string, name: string): Uint8Array {
  if (!HEX64.test(value)) throw invalid(`${name} must be 64 lower-case hex digits (a SHA-256)`);
  return fromHex(value);
}

export function confirmedRequest(ctx: OpoiContext, id: string): RequestRecord {
  const r = ctx.chain.opoi.request(id);
  if (!r) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'OPoI request not found on-chain (unknown, or its REQUEST is unconfirmed)');
  return r;
}

/** The actor of an address argument (-5 for a bad or non-key-hash address). */
export function actorArg(ctx: OpoiContext, address: string, name: string): Actor {
  const script = parseAddress(ctx, address);
  try {
    return actorOf(script, name);
  } catch {
    throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${name} must be a P2WPKH or P2PKH address`);
  }
}

/** The actor of an address whose key the wallet holds (-5 otherwise). */
export function ownActor(ctx: OpoiContext, wallet: ReturnType<typeof walletOf>, address: string, name: string): Actor {
  const actor = actorArg(ctx, address, name);
  if (!wallet.keyring.keyForHash(actor.hash)) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${name} is not an address of this wallet`);
  return actor;
}

/** The txid of a send, or the mempool's refusal as -26 with the rule's reason. */
export function sent(outcome: SendOutcome): string {
  if (outcome.kind === 'rejected') throw broadcastError(outcome.failure);
  return outcome.txid;
}
