/**
 * The hash outputs Equihash indices are drawn from.
 *
 * Index i uses output number g = floor(i / indicesPerHash), bytes [(i % indicesPerHash) * chunkBytes,
 * +chunkBytes). Output g is BLAKE2b(personalization; input || nonce || le32(g)).
 *
 * ZelHash twist (Flux): output g is instead the lane-wise sum, as sixteen little-endian 32-bit lanes
 * wrapping mod 2^32, of the stock outputs g & ~15 .. g; then the low 3 bits of bytes 15, 31, 47 and
 * 63 are cleared. (Those are bits 125..127 of each 16-byte chunk, which n=125 never reads, so the
 * clearing only matters to code that looks at whole outputs.)
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { TWIST_GROUP, type EquihashLayout } from './equihash-params.ts';

type Blake2b = ReturnType<typeof blake2b.create>;

/**
 * Serves the outputs for increasing g with the least BLAKE2b work: input || nonce is absorbed once
 * and each output only finalizes a clone of that state (one compression for a 140-byte header).
 * Requests for the same g, or, with the twist, for a later g of the same group of 16, continue from
 * what was already computed. Requests may come in any order; going backwards only costs a restart.
 */
export class EquihashHashStream {
  private readonly base: Blake2b;
  private readonly work: Blake2b;
  private readonly gBytes = new Uint8Array(4);
  private readonly gView = new DataView(this.gBytes.buffer);
  /** The stock BLAKE2b output of the last hashed g. */
  private readonly digest: Uint8Array;
  private readonly digestView: DataView;
  /** Twist only: running lane sums and their serialized, masked form. */
  private readonly lanes = new Uint32Array(TWIST_GROUP);
  private readonly twisted: Uint8Array;
  private readonly twistedView: DataView;
  private readonly twist: boolean;
  /** Last g folded into `digest` (plain) or into `lanes` (twist); -1 before any. */
  private current = -1;
  /** Twist only: the g whose masked sum `twisted` holds. */
  private twistedFor = -1;

  constructor(layout: EquihashLayout, input: Uint8Array, nonce: Uint8Array) {
    this.twist = layout.params.twist;
    this.base = blake2b.create({ dkLen: layout.digestBytes, personalization: layout.blake2Personalization });
    this.base.update(input).update(nonce);
    this.work = blake2b.create({ dkLen: layout.digestBytes });
    // Whole 32-bit words: digestInto writes through a Uint32Array view.
    this.digest = new Uint8Array(Math.ceil(layout.digestBytes / 4) * 4);
    this.digestView = new DataView(this.digest.buffer);
    this.twisted = new Uint8Array(layout.digestBytes);
    this.twistedView = new DataView(this.twisted.buffer);
  }

  /** The output for g (a view into internal storage, valid until the next call). */
  output(g: number): Uint8Array {
    return this.twist ? this.twistedOutput(g) : this.plainOutput(g);
  }

  private hashInto(g: number): void {
    this.gView.setUint32(0, g, true);
    this.base._cloneInto(this.work);
    this.work.update(this.gBytes);
    this.work.digestInto(this.digest);
  }

  private plainOutput(g: number): Uint8Array {
    if (g !== this.current) {
      this.hashInto(g);
      this.current = g;
    }
    return this.digest;
  }

  private twistedOutput(g: number): Uint8Array {
    if (g === this.twistedFor) return this.twisted;
    const lanes = this.lanes;
    const groupStart = g - (g % TWIST_GROUP);
    if (this.current < groupStart || this.current > g) {
      lanes.fill(0);
      this.current = groupStart - 1;
    }
    const dv = this.digestView;
    while (this.current < g) {
      this.current++;
      this.hashInto(this.current);
      for (let i = 0; i < TWIST_GROUP; i++) lanes[i] += dv.getUint32(i * 4, true);
    }
    const tv = this.twistedView;
    for (let i = 0; i < TWIST_GROUP; i++) tv.setUint32(i * 4, lanes[i], true);
    const t = this.twisted;
    t[15] &= 0xf8;
    t[31] &= 0xf8;
    t[47] &= 0xf8;
    t[63] &= 0xf8;
    this.twistedFor = g;
    return t;
  }
}
