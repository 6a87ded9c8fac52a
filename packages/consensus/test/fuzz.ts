import { DecodeError } from '../src/encoding/errors.ts';

/** xorshift32: a seeded generator so that a failing fuzz case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** One random structural mutation of `input`: bit flips, truncation, insertion, huge length prefixes. */
export function mutate(input: Uint8Array, rand: () => number): Uint8Array {
  const out = Array.from(input);
  const pos = () => (out.length ? rand() % out.length : 0);
  switch (rand() % 7) {
    case 0:
      for (let i = rand() % 4; i >= 0 && out.length; i--) out[pos()] ^= 1 << (rand() % 8);
      break;
    case 1:
      out.length = pos();
      break;
    case 2:
      out.splice(pos(), 0, ...Array.from({ length: 1 + (rand() % 8) }, () => rand() & 0xff));
      break;
    case 3:
      out.splice(pos(), 1 + (rand() % 8));
      break;
    case 4: {
      // A compactsize that announces an enormous length or count.
      const big = [
        [0xfd, 0xff, 0xff],
        [0xfe, 0xff, 0xff, 0xff, 0x01],
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0xfe, 0x00, 0x00, 0x00, 0x02],
      ][rand() % 4];
      out.splice(pos(), 1, ...big);
      break;
    }
    case 5:
      out.push(...Array.from({ length: 1 + (rand() % 4) }, () => rand() & 0xff));
      break;
    default: {
      const at = pos();
      const chunk = out.slice(at, at + 1 + (rand() % 40));
      out.splice(pos(), 0, ...chunk);
    }
  }
  return Uint8Array.from(out);
}

export interface FuzzResult {
  readonly cases: number;
  readonly accepted: number;
  readonly rejected: number;
}

/**
 * Feeds random and mutated inputs to `decode` for `ms` milliseconds (bounded by `maxCases`).
 * Anything but success or a DecodeError fails, with the input that caused it.
 */
export function fuzzDecoder(
  decode: (b: Uint8Array) => unknown,
  seeds: Uint8Array[],
  opts: { seed: number; ms: number; maxCases: number },
): FuzzResult {
  const rand = prng(opts.seed);
  const deadline = Date.now() + opts.ms;
  let cases = 0;
  let accepted = 0;
  let rejected = 0;
  while (cases < opts.maxCases && Date.now() < deadline) {
    let input: Uint8Array;
    if (rand() % 5 === 0 || seeds.length === 0) {
      input = Uint8Array.from({ length: rand() % 300 }, () => rand() & 0xff);
    } else {
      input = seeds[rand() % seeds.length];
      for (let m = 1 + (rand() % 3); m > 0; m--) input = mutate(input, rand);
    }
    cases++;
    try {
      decode(input);
      accepted++;
    } catch (e) {
      if (!(e instanceof DecodeError)) {
        throw new Error(`decoder threw ${String(e)} for input ${Buffer.from(input).toString('hex')}`);
      }
      rejected++;
    }
  }
  return { cases, accepted, rejected };
}
