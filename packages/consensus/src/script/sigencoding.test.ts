import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CURVE_ORDER } from '../crypto/secp256k1.ts';
import { toHex } from '../encoding/hex.ts';
import { ScriptFlags } from './flags.ts';
import { SIGHASH_ALL } from './sighash.ts';
import { checkSignatureEncoding, compactLowS } from './sigencoding.ts';

/** Minimal DER integer bytes of v, with a zero byte in front when the top bit is set. */
function derInteger(v: bigint): number[] {
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
  if (bytes.length === 0 || bytes[0] & 0x80) bytes.unshift(0);
  return bytes;
}

function scriptSig(r: number[], s: number[]): Uint8Array {
  return Uint8Array.from([0x30, r.length + s.length + 4, 0x02, r.length, ...r, 0x02, s.length, ...s, SIGHASH_ALL]);
}

const HALF = CURVE_ORDER >> 1n;
const EDGES = [1n, 0x7fn, 0x80n, HALF - 1n, HALF, HALF + 1n, CURVE_ORDER - 1n, CURVE_ORDER, CURVE_ORDER + 1n, (1n << 256n) - 1n];

test('LOW_S: a signature is high-S exactly when r and s are below the order and s is above half of it', () => {
  for (const r of EDGES) {
    for (const s of EDGES) {
      const sig = scriptSig(derInteger(r), derInteger(s));
      const high = r < CURVE_ORDER && s < CURVE_ORDER && s > HALF;
      const got = checkSignatureEncoding(sig, ScriptFlags.LOW_S);
      assert.equal(got, high ? 'SIG_HIGH_S' : null, `r=${r.toString(16)} s=${s.toString(16)}`);
    }
  }
  // Integers longer than 32 bytes (strict DER allows 33 with a sign byte, more with a top bit set) never count as high.
  const long = [0x01, ...new Array(32).fill(0xff)];
  assert.equal(checkSignatureEncoding(scriptSig(derInteger(1n), long), ScriptFlags.LOW_S), null, '33-byte s');
  assert.equal(checkSignatureEncoding(scriptSig(long, derInteger(HALF + 1n)), ScriptFlags.LOW_S), null, '33-byte r');
});

test('compactLowS: r||s with s negated when high, all zeros when r or s is out of range', () => {
  for (const r of EDGES) {
    for (const s of EDGES) {
      const der = scriptSig(derInteger(r), derInteger(s)).subarray(0, -1);
      const inRange = r < CURVE_ORDER && s < CURVE_ORDER;
      const lowS = s > HALF ? CURVE_ORDER - s : s;
      const want = inRange ? r.toString(16).padStart(64, '0') + lowS.toString(16).padStart(64, '0') : '0'.repeat(128);
      const got = compactLowS(der);
      assert.ok(got !== null, `r=${r.toString(16)} s=${s.toString(16)}: unparsed`);
      assert.equal(toHex(got), want, `r=${r.toString(16)} s=${s.toString(16)}`);
    }
  }
});
