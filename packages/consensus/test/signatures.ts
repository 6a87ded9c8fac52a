// Signature fixtures shared by the script tests.
import { CURVE_ORDER } from '../src/crypto/secp256k1.ts';

/** The same compact (r ‖ s) signature with s replaced by n − s: the high-S twin of a low-S signature. */
export function highS(compact: Uint8Array): Uint8Array {
  const out = compact.slice();
  let s = 0n;
  for (const b of out.subarray(32)) s = (s << 8n) | BigInt(b);
  let high = CURVE_ORDER - s;
  for (let i = 63; i >= 32; i--) {
    out[i] = Number(high & 0xffn);
    high >>= 8n;
  }
  return out;
}
