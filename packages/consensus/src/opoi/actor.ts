/**
 * Acting addresses of OPoI payloads and the output scripts that pay them. Only key-hash
 * addresses act: their spends carry one signature whose sighash type shows what it covers.
 */
import { toHex } from '../encoding/hex.ts';
import { p2pkhScript, p2wpkhScript, solver } from '../script/standard.ts';
import { type Actor, ActorType } from './payload.ts';

export function actorScript(a: Actor): Uint8Array {
  return a.type === ActorType.P2WPKH ? p2wpkhScript(a.hash) : p2pkhScript(a.hash);
}

/** The actor an output script pays, or null when it is not a key-hash script. */
export function actorFromScript(script: Uint8Array): Actor | null {
  const { type, solutions } = solver(script);
  if (type === 'witness_v0_keyhash') return { type: ActorType.P2WPKH, hash: solutions[0] };
  if (type === 'pubkeyhash') return { type: ActorType.P2PKH, hash: solutions[0] };
  return null;
}

/** 42 hex digits (type byte, key hash): how stakes and commits are keyed. */
export function actorKey(a: Actor): string {
  return (a.type === ActorType.P2WPKH ? '00' : '01') + toHex(a.hash);
}
