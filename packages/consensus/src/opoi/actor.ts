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

/** Whether `script` is the actor's own output script (actorScript), compared in place. */
export function paysActor(script: Uint8Array, a: Actor): boolean {
  let at: number;
  if (a.type === ActorType.P2WPKH) {
    if (script.length !== 22 || script[0] !== 0x00 || script[1] !== 0x14) return false;
    at = 2;
  } else {
    // OP_DUP OP_HASH160 <20> ... OP_EQUALVERIFY OP_CHECKSIG
    if (script.length !== 25 || script[0] !== 0x76 || script[1] !== 0xa9 || script[2] !== 0x14 || script[23] !== 0x88 || script[24] !== 0xac)
      return false;
    at = 3;
  }
  for (let i = 0; i < 20; i++) if (script[at + i] !== a.hash[i]) return false;
  return a.hash.length === 20;
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
