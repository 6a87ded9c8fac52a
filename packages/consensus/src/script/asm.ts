import { DecodeError } from '../encoding/errors.ts';
import { fromHex, toHex } from '../encoding/hex.ts';
import { ScriptFlags } from './flags.ts';
import { Op, opName, opcodeFromName } from './opcodes.ts';
import { ScriptBuilder, ScriptReader, decodeScriptNum } from './script.ts';
import { checkSignatureEncoding } from './sigencoding.ts';
import { isUnspendable } from './standard.ts';

/** Text forms of scripts: Core's asm (decodescript, getrawtransaction) and script_tests notation. */

const SIGHASH_NAMES = new Map<number, string>([
  [0x01, 'ALL'],
  [0x81, 'ALL|ANYONECANPAY'],
  [0x02, 'NONE'],
  [0x82, 'NONE|ANYONECANPAY'],
  [0x03, 'SINGLE'],
  [0x83, 'SINGLE|ANYONECANPAY'],
]);
const SIGHASH_BY_NAME = new Map([...SIGHASH_NAMES].map(([k, v]) => [v, k]));

/** Every opcode name toAsm can print (numbers aside), so that fromAsm reads all of them back. */
const ASM_OPCODES = new Map<string, number>();
for (let op = 0; op < 256; op++) {
  const name = opName(op);
  if (name.startsWith('OP_') && name !== 'OP_UNKNOWN') ASM_OPCODES.set(name, op);
}

/**
 * Core's ScriptToAsmStr. Pushes of up to 4 bytes print as numbers, longer ones as hex, other
 * opcodes by name; a truncated push ends the text with "[error]". With `attemptSighashDecode`
 * (what Core does for scriptSigs), a push that is a strictly encoded signature prints its
 * hash-type byte as a suffix such as "[ALL]", except in unspendable (OP_RETURN) scripts.
 */
export function toAsm(script: Uint8Array, attemptSighashDecode = false): string {
  const parts: string[] = [];
  const decodeSighash = attemptSighashDecode && !isUnspendable(script);
  const r = new ScriptReader(script);
  while (r.pos < script.length) {
    if (!r.next()) {
      parts.push('[error]');
      break;
    }
    if (r.opcode > Op.OP_PUSHDATA4) {
      parts.push(opName(r.opcode));
      continue;
    }
    const data = r.data();
    if (data.length <= 4) {
      // Printed as a number even when not minimally encoded; 4 bytes cannot overflow.
      parts.push(String(decodeScriptNum(data, false)));
      continue;
    }
    const hashType = data[data.length - 1];
    if (decodeSighash && checkSignatureEncoding(data, ScriptFlags.STRICTENC) === null && SIGHASH_NAMES.has(hashType)) {
      parts.push(`${toHex(data.subarray(0, -1))}[${SIGHASH_NAMES.get(hashType)}]`);
    } else {
      parts.push(toHex(data));
    }
  }
  return parts.join(' ');
}

/**
 * Reads Core's asm back into a script: decimal tokens are numbers (pushed minimally, as
 * `CScript << n`), hex tokens are data pushes (with an optional "[ALL]"-style hash-type suffix),
 * other tokens are OP_ names. Asm is lossy (a non-minimal push prints like a minimal one), so
 * script → asm → script is exact only for minimally pushed scripts, while asm → script → asm is
 * exact except where Core's asm is itself ambiguous: a 5-byte push whose hex reads as an int32.
 */
export function fromAsm(asm: string): Uint8Array {
  const b = new ScriptBuilder();
  for (const token of asm.split(' ')) {
    if (token === '') continue;
    // toAsm prints numbers only for pushes of up to 4 bytes: no leading zeros, within int32.
    if (/^-?(0|[1-9]\d{0,9})$/.test(token) && Math.abs(Number(token)) <= 0x7fffffff) {
      b.pushInt(Number(token));
      continue;
    }
    const sig = /^([0-9a-f]+)\[([A-Z|]+)\]$/.exec(token);
    if (sig !== null) {
      const hashType = SIGHASH_BY_NAME.get(sig[2]);
      if (hashType === undefined) throw new DecodeError('invalid', `unknown sighash type in asm: ${token}`);
      const data = fromHex(sig[1]);
      const full = new Uint8Array(data.length + 1);
      full.set(data);
      full[data.length] = hashType;
      b.push(full);
      continue;
    }
    if (/^[0-9a-f]+$/.test(token) && token.length % 2 === 0) {
      b.push(fromHex(token));
      continue;
    }
    const opcode = ASM_OPCODES.get(token);
    if (opcode === undefined) throw new DecodeError('invalid', `cannot read asm token: ${token}`);
    b.op(opcode);
  }
  return b.build();
}

/**
 * Core's ParseScript, the notation of script_tests.json and tx_valid.json: decimal numbers
 * (within ±0xffffffff, pushed minimally), 0x-prefixed hex inserted as raw bytes (not pushed),
 * 'single-quoted' strings pushed as data, and opcode names with or without OP_.
 */
export function parseShortScript(text: string): Uint8Array {
  const b = new ScriptBuilder();
  for (const word of text.split(/[ \t\n]/)) {
    if (word === '') continue;
    if (/^-?\d+$/.test(word)) {
      const n = Number(word);
      if (!Number.isSafeInteger(n) || Math.abs(n) > 0xffffffff) {
        throw new DecodeError('invalid', `decimal number out of range -0xFFFFFFFF..0xFFFFFFFF: ${word}`);
      }
      b.pushInt(n);
    } else if (word.startsWith('0x') && word.length > 2 && /^[0-9a-fA-F]+$/.test(word.slice(2)) && word.length % 2 === 0) {
      b.raw(fromHex(word.slice(2)));
    } else if (word.length >= 2 && word.startsWith("'") && word.endsWith("'")) {
      b.push(new TextEncoder().encode(word.slice(1, -1)));
    } else {
      const opcode = opcodeFromName(word);
      if (opcode === undefined) throw new DecodeError('invalid', `unknown opcode in script: ${word}`);
      b.op(opcode);
    }
  }
  return b.build();
}
