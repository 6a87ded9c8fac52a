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

/** A key read as latin1, one character per byte: the cheapest string of it, for Map keys. */
export function latin1(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
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
const MAX_STORED_SCRIPT = 0xffff;
const scratch = Buffer.allocUnsafeSlow(32 + MAX_STORED_SCRIPT);

/**
 * encodeCoin's bytes in a scratch buffer (valid until the next call), built without the Writer's
 * allocations: the coins cache copies them into its table at once.
 */
export function encodeCoinScratch(c: Coin): Uint8Array {
  const script = c.scriptPubKey;
  if (script.length > MAX_STORED_SCRIPT) throw new RangeError(`a ${script.length}-byte script is never stored`);
  let pos = putVarInt(c.height * 2 + (c.coinbase ? 1 : 0), scratch, 0);
  pos = putVarInt(Number(c.value), scratch, pos);
  if (script.length < 0xfd) scratch[pos++] = script.length;
  else {
    scratch[pos++] = 0xfd;
    scratch[pos++] = script.length & 0xff;
    scratch[pos++] = script.length >>> 8;
  }
  scratch.set(script, pos);
  return scratch.subarray(0, pos + script.length);
}
