import { randomBytes } from 'node:crypto';
import { latin1 } from './coins.ts';

/** Bytes of a coin key (coins.ts): txid ‖ big-endian output index. */
export const KEY_BYTES = 36;

/**
 * Slot layout: key, state (0 when empty), value length (or OVERFLOW), value. The key comes first
 * so that its nine 32-bit words are aligned: probes hash and compare words, not bytes. 50 value
 * bytes hold the encoded coin of every standard output up to a 34-byte script (P2WSH, P2TR) at
 * any amount and height; longer values (bare multisig, uncompressed P2PK) live in a map beside
 * the table.
 */
const SLOT = 88;
const STATE_AT = KEY_BYTES;
const LENGTH_AT = STATE_AT + 1;
const VALUE_AT = LENGTH_AT + 1;
const VALUE_MAX = SLOT - VALUE_AT;
const OVERFLOW = 0xff;
/** A slot, and a key, in 32-bit words. */
const WORDS = SLOT / 4;
const KEY_WORDS = KEY_BYTES / 4;
/** Heap held by a long value beyond its bytes: its key string, the array object, the map slot. */
const LONG_OVERHEAD = 160;

const MIN_CAPACITY = 1024;
const MAX_BYTES = 2 ** 31;
/** Grown by half when fuller than this: linear probing stays short up to about 0.8. */
const MAX_LOAD = 0.8;
/**
 * How full `reserve` plans a table to get. A set that stays at its size (spends and creates in
 * step, as a -reindex past its first blocks) would otherwise sit at MAX_LOAD throughout, where a
 * removal's backward shift walks about twice as far: a removal and an insertion cost 1.0 µs at
 * half full against 2.0 µs at four fifths (measured on a million coins), for 60% more memory.
 */
const RESERVE_LOAD = 0.5;
/**
 * At its largest size a table fills past MAX_LOAD (it reports itself full, and its owner writes
 * it out at the end of the block); beyond this it grows anyway, whatever its bound.
 */
const HARD_LOAD = 0.95;

/**
 * A hash table of coin keys to a state byte and a value, in one buffer outside the JavaScript
 * heap: a million entries are a million slots the garbage collector never visits, where a Map
 * holds three objects each (measured: Map operations and their collection were a fifth of the
 * connecting thread's time during -reindex). Open addressing with linear probing and
 * backward-shift deletion, so no tombstones pile up as coins come and go; the hash is seeded
 * per table from a random seed, so transactions cannot be ground to collide in it.
 */
export class CoinTable {
  private slots: Uint8Array;
  /** The same memory as 32-bit words. */
  private words: Int32Array;
  private capacity: number;
  private count = 0;
  /** Values too long for a slot, under their key read as latin1. */
  private readonly long = new Map<string, Uint8Array>();
  private longBytes = 0;
  private readonly seed = randomBytes(4).readUInt32LE(0);
  /** The key of the operation under way: copied in once, then hashed and compared as words. */
  private readonly key32 = new Int32Array(KEY_WORDS);
  private readonly key8 = new Uint8Array(this.key32.buffer);

  private readonly maxBytes: number;

  /**
   * `maxBytes` bounds the slots' memory: the table does not grow past it before it is full. It is
   * held to 2 GiB (about 19 million coins), so that growing past it when it must stays within the
   * largest typed array Node allows (4 GiB).
   */
  constructor(maxBytes = MAX_BYTES) {
    this.maxBytes = Math.min(maxBytes, MAX_BYTES);
    this.capacity = MIN_CAPACITY;
    this.slots = new Uint8Array(this.capacity * SLOT);
    this.words = new Int32Array(this.slots.buffer);
  }

  /**
   * It holds changes, and its memory reached its bound or it is at its largest size and as full as
   * it should get. An empty table is never full, however small its bound.
   */
  get full(): boolean {
    if (this.count === 0) return false;
    return this.bytes > this.maxBytes || (this.count > this.capacity * MAX_LOAD && this.nextCapacity() === this.capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Memory held: the slots, plus the long values and their keys. */
  get bytes(): number {
    return this.slots.length + this.longBytes;
  }

  /** The slot's state byte for `key` (0 when absent); its value is then read with `value`. */
  find(key: Uint8Array): number {
    const s = this.lookup(key);
    return s < 0 ? 0 : this.slots[s * SLOT + STATE_AT];
  }

  /**
   * The value stored with `key` (a view into the table, valid until the next change), or
   * undefined when the key is absent.
   */
  value(key: Uint8Array): Uint8Array | undefined {
    const s = this.lookup(key);
    return s < 0 ? undefined : this.valueAt(s);
  }

  /** Stores `state` (1..255) and `value` under `key`, replacing what was there; the state it had (0: absent). */
  set(key: Uint8Array, state: number, value: Uint8Array): number {
    let s = this.lookup(key);
    let before = 0;
    if (s < 0) {
      const load = (this.count + 1) / this.capacity;
      if (load > HARD_LOAD || (load > MAX_LOAD && this.nextCapacity() > this.capacity)) {
        this.grow();
        s = this.emptySlot(this.home(this.key32, 0));
      } else {
        s = -1 - s;
      }
      const words = this.words;
      for (let i = 0, w = s * WORDS; i < KEY_WORDS; i++) words[w + i] = this.key32[i];
      this.count++;
    } else {
      before = this.slots[s * SLOT + STATE_AT];
      if (this.slots[s * SLOT + LENGTH_AT] === OVERFLOW) this.dropLong(key);
    }
    const at = s * SLOT;
    this.slots[at + STATE_AT] = state;
    if (value.length <= VALUE_MAX) {
      this.slots[at + LENGTH_AT] = value.length;
      this.slots.set(value, at + VALUE_AT);
    } else {
      this.slots[at + LENGTH_AT] = OVERFLOW;
      // A copy even when `value` is a Buffer, whose slice() would share the caller's memory.
      this.long.set(latin1(key), new Uint8Array(value));
      this.longBytes += value.length + LONG_OVERHEAD;
    }
    return before;
  }

  /** Changes the state byte of `key`, which is in the table, keeping its value. */
  setState(key: Uint8Array, state: number): void {
    const s = this.lookup(key);
    if (s < 0) throw new Error('setState of a key the table does not hold');
    this.slots[s * SLOT + STATE_AT] = state;
  }

  /** Removes `key`; whether it was there. */
  delete(key: Uint8Array): boolean {
    const s = this.lookup(key);
    if (s < 0) return false;
    if (this.slots[s * SLOT + LENGTH_AT] === OVERFLOW) this.dropLong(key);
    this.removeSlot(s);
    this.count--;
    return true;
  }

  /** Removes `key` if its state is `state`; the state it had (0: absent), in one probe. */
  deleteIf(key: Uint8Array, state: number): number {
    const s = this.lookup(key);
    if (s < 0) return 0;
    const found = this.slots[s * SLOT + STATE_AT];
    if (found !== state) return found;
    if (this.slots[s * SLOT + LENGTH_AT] === OVERFLOW) this.dropLong(key);
    this.removeSlot(s);
    this.count--;
    return found;
  }

  clear(): void {
    if (this.capacity === MIN_CAPACITY) this.slots.fill(0);
    else {
      this.slots = new Uint8Array(MIN_CAPACITY * SLOT);
      this.words = new Int32Array(this.slots.buffer);
    }
    this.capacity = MIN_CAPACITY;
    this.count = 0;
    this.long.clear();
    this.longBytes = 0;
  }

  /**
   * Every entry: `visit(key, state, value)` with views into the table, valid during the call. The
   * table must not change meanwhile.
   */
  forEach(visit: (key: Uint8Array, state: number, value: Uint8Array) => void): void {
    for (let s = 0; s < this.capacity; s++) {
      const at = s * SLOT;
      const state = this.slots[at + STATE_AT];
      if (state !== 0) visit(this.slots.subarray(at, at + KEY_BYTES), state, this.valueAt(s));
    }
  }

  private dropLong(key: Uint8Array): void {
    const k = latin1(key);
    this.longBytes -= this.long.get(k)!.length + LONG_OVERHEAD;
    this.long.delete(k);
  }

  private valueAt(s: number): Uint8Array {
    const at = s * SLOT;
    const len = this.slots[at + LENGTH_AT];
    if (len === OVERFLOW) return this.long.get(latin1(this.slots.subarray(at, at + KEY_BYTES)))!;
    return this.slots.subarray(at + VALUE_AT, at + VALUE_AT + len);
  }

  /**
   * The slot holding `key`; when it is absent, -1 - the empty slot that ends its probe run (where
   * it would go). Leaves the key in `key32`.
   */
  private lookup(key: Uint8Array): number {
    if (key.length !== KEY_BYTES) throw new RangeError(`a coin key has ${KEY_BYTES} bytes, not ${key.length}`);
    const k = this.key32;
    this.key8.set(key);
    const k0 = k[0];
    const slots = this.slots;
    const words = this.words;
    const capacity = this.capacity;
    for (let s = this.home(k, 0); ; s = s + 1 === capacity ? 0 : s + 1) {
      if (slots[s * SLOT + STATE_AT] === 0) return -1 - s;
      const w = s * WORDS;
      if (words[w] !== k0) continue;
      let i = 1;
      while (i < KEY_WORDS && words[w + i] === k[i]) i++;
      if (i === KEY_WORDS) return s;
    }
  }

  /** The first empty slot from slot `s` on. */
  private emptySlot(s: number): number {
    while (this.slots[s * SLOT + STATE_AT] !== 0) s = s + 1 === this.capacity ? 0 : s + 1;
    return s;
  }

  /**
   * Empties slot `s`, moving later entries of its probe run back into the gap so that every entry
   * stays reachable from its home slot (Knuth's algorithm R).
   */
  private removeSlot(s: number): void {
    const slots = this.slots;
    let gap = s;
    for (let j = s + 1 === this.capacity ? 0 : s + 1; slots[j * SLOT + STATE_AT] !== 0; j = j + 1 === this.capacity ? 0 : j + 1) {
      const home = this.home(this.words, j * WORDS);
      // The entry at j may move to the gap unless its home lies cyclically in (gap, j].
      const stays = gap <= j ? gap < home && home <= j : gap < home || home <= j;
      if (stays) continue;
      slots.copyWithin(gap * SLOT, j * SLOT, j * SLOT + SLOT);
      gap = j;
    }
    slots[gap * SLOT + STATE_AT] = 0;
  }

  /** The size the table grows to next: half as large again, within its bound. */
  private nextCapacity(): number {
    return Math.max(this.capacity, Math.min(Math.ceil(this.capacity * 1.5), Math.floor(this.maxBytes / SLOT)));
  }

  private grow(): void {
    // Past HARD_LOAD a bounded table grows anyway: it must never run out of empty slots.
    const next = this.nextCapacity();
    this.resize(next > this.capacity ? next : Math.ceil(this.capacity * 1.5));
  }

  /**
   * Makes room for `entries` entries at once, half full, as far as the table's bound allows, so
   * that filling it needs no growth on the way (each growth moves every entry and touches fresh
   * memory) and its probe runs stay short once it is filled.
   */
  reserve(entries: number): void {
    const capacity = Math.min(Math.ceil(entries / RESERVE_LOAD), Math.floor(this.maxBytes / SLOT));
    if (capacity > this.capacity) this.resize(capacity);
  }

  private resize(capacity: number): void {
    const old = this.slots;
    const from32 = this.words;
    const oldCapacity = this.capacity;
    this.capacity = capacity;
    this.slots = new Uint8Array(this.capacity * SLOT);
    this.words = new Int32Array(this.slots.buffer);
    const to32 = this.words;
    // Word indexes by multiplication: byte offsets pass 2^31 in a table over 2 GiB.
    for (let s = 0; s < oldCapacity; s++) {
      if (old[s * SLOT + STATE_AT] === 0) continue;
      const w = s * WORDS;
      const to = this.emptySlot(this.home(from32, w)) * WORDS;
      for (let i = 0; i < WORDS; i++) to32[to + i] = from32[w + i];
    }
  }

  /**
   * Where the probe run of the key whose words start at `from` in `words` starts: a seeded mix of
   * its nine words, scaled to the capacity.
   */
  private home(words: Int32Array, from: number): number {
    let h = this.seed;
    for (let i = from; i < from + KEY_WORDS; i++) {
      h = Math.imul(h ^ words[i], 0x5bd1e995);
      h ^= h >>> 15;
    }
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h = (h ^ (h >>> 16)) >>> 0;
    return Math.min(this.capacity - 1, Math.floor((h / 4294967296) * this.capacity));
  }
}
