import { Reader, Writer, putVarInt, type OutPoint, type TxOut } from '@cs/consensus';

/** An unspent output as the UTXO set keeps it. */
export interface Coin {
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
  /** Height of the block that created it. */
  readonly height: number;
  readonly coinbase: boolean;
}

/** txid (internal order) ‖ big-endian index: outputs of one transaction sort together. */
export function coinKey(p: OutPoint): Buffer {
  return writeCoinKey(p, Buffer.allocUnsafe(36));
}

/** coinKey written into `into` (36 bytes), e.g. a scratch key for a lookup. */
export function writeCoinKey<T extends Uint8Array>(p: OutPoint, into: T): T {
  into.set(p.txid, 0);
  into[32] = p.vout >>> 24;
  into[33] = p.vout >>> 16;
  into[34] = p.vout >>> 8;
  into[35] = p.vout;
  return into;
}

export function outPointFromKey(key: Uint8Array): OutPoint {
  return { txid: key.slice(0, 32), vout: Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(32) };
}

export function writeCoin(w: Writer, c: Coin): Writer {
  // Core's packing of height and the coinbase flag into one VARINT.
  return w
    .varInt(c.height * 2 + (c.coinbase ? 1 : 0))
    .varInt(Number(c.value))
    .varBytes(c.scriptPubKey);
}

export function readCoin(r: Reader): Coin {
  const code = r.varInt();
  const value = BigInt(r.varInt());
  const scriptPubKey = r.varBytes().slice();
  return { value, scriptPubKey, height: Math.floor(code / 2), coinbase: code % 2 === 1 };
}

export function encodeCoin(c: Coin): Buffer {
  const bytes = writeCoin(new Writer(16 + c.scriptPubKey.length), c).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeCoin(bytes: Uint8Array): Coin {
  const r = new Reader(bytes);
  const c = readCoin(r);
  r.end('coin');
  return c;
}

export function coinFromOutput(out: TxOut, height: number, coinbase: boolean): Coin {
  return { value: out.value, scriptPubKey: out.scriptPubKey, height, coinbase };
}

/** Outputs over 10,000 bytes are unspendable and never stored (isUnspendable): a 3-byte length always fits. */
const MAX_LATIN1_SCRIPT = 0xffff;
const scratch = Buffer.allocUnsafeSlow(32 + MAX_LATIN1_SCRIPT);
/**
 * `prefix` followed by encodeCoin's bytes as a latin1 string, one character per byte: the coins
 * cache's compact form, built without the Writer's allocations.
 */
export function coinToLatin1(prefix: string, c: Coin): string {
  const script = c.scriptPubKey;
  if (script.length > MAX_LATIN1_SCRIPT) throw new RangeError(`a ${script.length}-byte script is never stored`);
  // The prefix goes into the same buffer: `prefix + string` would make a cons string, two heap
  // objects per cached coin instead of one flat string.
  let pos = scratch.write(prefix, 0, 'latin1');
  pos = putVarInt(c.height * 2 + (c.coinbase ? 1 : 0), scratch, pos);
  pos = putVarInt(Number(c.value), scratch, pos);
  if (script.length < 0xfd) scratch[pos++] = script.length;
  else {
    scratch[pos++] = 0xfd;
    scratch[pos++] = script.length & 0xff;
    scratch[pos++] = script.length >>> 8;
  }
  scratch.set(script, pos);
  return scratch.toString('latin1', 0, pos + script.length);
}

/** Where latin1VarInt reads next in the string it is given. */
let latin1At = 0;

function latin1VarInt(s: string): number {
  let n = 0;
  for (;;) {
    const b = s.charCodeAt(latin1At++);
    n = n * 128 + (b & 0x7f);
    if (b & 0x80) n += 1;
    else return n;
  }
}

/** The coin coinToLatin1 wrote at `start` of `s` (a string this process made: not checked again). */
export function coinFromLatin1(s: string, start: number): Coin {
  latin1At = start;
  const code = latin1VarInt(s);
  const value = latin1VarInt(s);
  let p = latin1At;
  let len = s.charCodeAt(p++);
  if (len === 0xfd) {
    len = s.charCodeAt(p) | (s.charCodeAt(p + 1) << 8);
    p += 2;
  }
  const scriptPubKey = new Uint8Array(len);
  for (let i = 0; i < len; i++) scriptPubKey[i] = s.charCodeAt(p + i);
  return { value: BigInt(value), scriptPubKey, height: Math.floor(code / 2), coinbase: code % 2 === 1 };
}
