import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prng } from '../../test/fuzz.ts';
import { readVector } from '../../test/vectors.ts';
import { DecodeError } from '../encoding/errors.ts';
import { fromHex, hashFromHex, hashesFromHex, hashToHex, toHex } from '../encoding/hex.ts';
import { Reader } from '../encoding/reader.ts';
import { Writer } from '../encoding/writer.ts';
import { Block } from './block.ts';
import { BlockHeader } from './header.ts';
import { merkleBranch, merkleRoot, rootFromBranch } from './merkle.ts';
import { Transaction } from './tx.ts';

type CoreTxVector = [unknown, string, string] | [string];

function coreTxHexes(): string[] {
  const out: string[] = [];
  for (const file of ['bitcoin-core/tx_valid.json', 'bitcoin-core/tx_invalid.json']) {
    for (const row of readVector<CoreTxVector[]>(file)) if (row.length === 3) out.push(row[1]);
  }
  return out;
}

test('every serialized transaction in Core tx_valid/tx_invalid round-trips byte for byte', () => {
  const hexes = coreTxHexes();
  assert.ok(hexes.length > 200);
  let decoded = 0;
  for (const hex of hexes) {
    let tx: Transaction;
    try {
      tx = Transaction.decode(fromHex(hex));
    } catch (e) {
      // A few tx_invalid entries are deliberately unparseable (e.g. superfluous witness record).
      assert.ok(e instanceof DecodeError, hex);
      continue;
    }
    decoded++;
    assert.equal(toHex(tx.encode()), hex);
    // The stripped serialization is cut out of the decoded bytes: it must be what writing the
    // fields without witnesses gives.
    assert.equal(toHex(tx.encode(false)), toHex(new Transaction(tx).encode(false)), hex);
    assert.ok(tx.weight >= tx.baseSize * 4 && tx.vsize * 4 >= tx.weight);
  }
  assert.ok(decoded > hexes.length - 10);
});

test('transactions of every shape decode back to themselves, one after another in a buffer as in a block', () => {
  // Transaction.read decodes in place to find a transaction's end, then decodes its own copy: both
  // passes must end at the same byte on every layout. Lengths straddle the compact-size boundaries
  // (252/253), with and without witnesses, empty scripts and empty witness items.
  const rand = prng(7);
  const lengths = [0, 1, 20, 252, 253, 300];
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => rand() & 0xff);
  const pick = <T>(xs: readonly T[]) => xs[rand() % xs.length];
  const txs: Transaction[] = [];
  for (let i = 0; i < 300; i++) {
    const witness = i % 3 !== 0;
    const inputs = Array.from({ length: 1 + (rand() % 3) }, () => ({
      prevout: { txid: bytes(32), vout: rand() >>> 0 },
      scriptSig: bytes(pick(lengths)),
      sequence: rand() >>> 0,
      witness: witness ? Array.from({ length: rand() % 4 }, () => bytes(pick(lengths))) : [],
    }));
    if (witness && inputs.every((x) => x.witness.length === 0)) inputs[0].witness.push(bytes(1));
    const outputs = Array.from({ length: rand() % 3 }, () => ({ value: BigInt(rand() >>> 0), scriptPubKey: bytes(pick(lengths)) }));
    txs.push(new Transaction({ version: rand() | 0, inputs, outputs, locktime: rand() >>> 0 }));
  }
  const w = new Writer();
  for (const tx of txs) tx.write(w);
  const r = new Reader(w.finish());
  for (const tx of txs) {
    const read = Transaction.read(r);
    assert.equal(toHex(read.encode()), toHex(tx.encode()));
    assert.equal(toHex(read.encode(false)), toHex(tx.encode(false)));
    assert.equal(read.txidHex, tx.txidHex);
  }
  r.end('transactions');
  // Cut short anywhere, each fails as truncated in the first pass, which builds nothing.
  const one = txs[1].encode();
  for (let n = 0; n < one.length; n++) {
    assert.throws(
      () => Transaction.decode(one.subarray(0, n)),
      (e: unknown) => e instanceof DecodeError && e.code === 'truncated',
      `cut at ${n}`,
    );
  }
});

test('a block’s sizes, summed from its transactions, are those of its serializations', () => {
  const rand = prng(11);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => rand() & 0xff);
  // A real header, with its 1344-byte Equihash solution.
  const genesis = readVector<{ genesis: { header_hex?: string }[] }>('genesis-headers.json').genesis.find((g) => g.header_hex)!;
  const header = BlockHeader.decode(fromHex(genesis.header_hex!));
  // Up to 300 transactions: the count's compact size takes 1 byte, then 3 (from 253 on).
  for (const count of [1, 2, 252, 253, 300]) {
    const txs = Array.from(
      { length: count },
      (_, i) =>
        new Transaction({
          version: 2,
          inputs: [{ prevout: { txid: bytes(32), vout: i }, scriptSig: bytes(i % 5), sequence: 0, witness: i % 2 ? [bytes(72), bytes(33)] : [] }],
          outputs: [{ value: BigInt(i), scriptPubKey: bytes(22) }],
          locktime: 0,
        }),
    );
    const block = new Block(header, txs);
    assert.equal(block.size, block.encode(true).length, `size of ${count}`);
    assert.equal(block.strippedSize, block.encode(false).length, `stripped size of ${count}`);
  }
});

test('segwit transaction: txid, wtxid, sizes (BIP143 native P2WPKH example, signed)', () => {
  const hex =
    '01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000';
  const tx = Transaction.decode(fromHex(hex));
  assert.equal(tx.inputs.length, 2);
  assert.equal(tx.inputs[1].witness.length, 2);
  assert.equal(tx.size, hex.length / 2);
  assert.equal(tx.hasWitness, true);
  assert.notEqual(tx.txidHex, tx.wtxidHex);
  // Stripped form re-decodes to the same txid.
  const stripped = Transaction.decode(tx.encode(false));
  assert.equal(stripped.txidHex, tx.txidHex);
  assert.equal(stripped.wtxidHex, tx.txidHex);
  assert.equal(tx.weight, tx.baseSize * 3 + tx.size);
});

test('decoder rejects superfluous witness flag, unknown flags and trailing bytes', () => {
  // version 1, marker 0, flag 1, one input, one output, empty witness for the input.
  const base = '0100000000010100000000000000000000000000000000000000000000000000000000000000000000000000ffffffff0100000000000000000000000000';
  assert.throws(
    () => Transaction.decode(fromHex(base)),
    (e: unknown) => e instanceof DecodeError && /superfluous/.test(e.message),
  );
  const unknownFlag = `${base.slice(0, 10)}02${base.slice(12)}`;
  assert.throws(() => Transaction.decode(fromHex(unknownFlag)), DecodeError);
  const legacy = `0100000001${'00'.repeat(32)}ffffffff00ffffffff0100000000000000000000000000`;
  assert.equal(Transaction.decode(fromHex(legacy)).inputs.length, 1);
  assert.throws(
    () => Transaction.decode(fromHex(`${legacy}00`)),
    (e: unknown) => e instanceof DecodeError && e.code === 'trailing',
  );
  assert.throws(
    () => Transaction.decode(fromHex(legacy.slice(0, -2))),
    (e: unknown) => e instanceof DecodeError && e.code === 'truncated',
  );
});

test('compactsize: canonical encodings only, bounded', () => {
  for (const n of [0, 1, 0xfc, 0xfd, 0xffff, 0x10000, 0x2000000]) {
    const bytes = new Writer().compactSize(n).finish();
    assert.equal(new Reader(bytes).compactSize(), n);
  }
  const bad = (hex: string, code: string) =>
    assert.throws(
      () => new Reader(fromHex(hex)).compactSize(),
      (e: unknown) => e instanceof DecodeError && e.code === code,
      hex,
    );
  bad('fdfc00', 'non-canonical');
  bad('feffff0000', 'non-canonical');
  bad('ffffffffff00000000', 'non-canonical');
  bad('ff0000000001000000', 'oversize');
  bad('fe01000002', 'oversize'); // 0x02000001 > MAX_SIZE
  bad('fd01', 'truncated');
});

test('Core VARINT round trips and matches known encodings', () => {
  // Encodings from Core's serialize tests (varint_tests): 0 -> 00, 127 -> 7f, 128 -> 8000, 255 -> 807f, 16383 -> fe7f, 16384 -> ff00.
  const known: [number, string][] = [
    [0, '00'],
    [127, '7f'],
    [128, '8000'],
    [255, '807f'],
    [16383, 'fe7f'],
    [16384, 'ff00'],
  ];
  for (const [n, hex] of known) {
    assert.equal(toHex(new Writer().varInt(n).finish()), hex, String(n));
    assert.equal(new Reader(fromHex(hex)).varInt(), n);
  }
  for (const n of [2 ** 32, 2 ** 40 + 12345, Math.floor(Number.MAX_SAFE_INTEGER / 256)]) {
    assert.equal(new Reader(new Writer().varInt(n).finish()).varInt(), n);
  }
  assert.throws(() => new Reader(fromHex('ff'.repeat(12))).varInt(), DecodeError);
});

test('Zcash genesis headers decode and hash to their published hashes', () => {
  const v = readVector<{ genesis: { chain: string; hash: string; header_hex?: string; chainparams_fields?: { nSolution_hex?: string } }[] }>(
    'genesis-headers.json',
  );
  let checked = 0;
  for (const g of v.genesis) {
    if (g.chain !== 'zcash' || !g.header_hex) continue;
    const header = BlockHeader.decode(fromHex(g.header_hex));
    assert.equal(header.hashHex, g.hash);
    assert.equal(header.version, 4);
    assert.equal(toHex(header.encode()), g.header_hex);
    checked++;
  }
  assert.equal(checked, 3);
});

test('hashFromHex reverses 64 hex digits of either case and refuses anything else, wherever the bad digit is', () => {
  const hex = `00${'0123456789abcdef'.repeat(3)}ABCDEF0123456f`;
  assert.equal(hex.length, 64);
  assert.equal(toHex(hashFromHex(hex)), toHex(Uint8Array.from(Buffer.from(hex, 'hex')).reverse()));
  assert.equal(hashToHex(hashFromHex(hex)), hex.toLowerCase());
  assert.ok(!Buffer.isBuffer(hashFromHex(hex)), 'a plain Uint8Array');
  for (let at = 0; at < 64; at += 7) {
    // Node's hex decoder reads only a character's low byte: U+0161 would pass for 'a'.
    for (const bad of ['g', ' ', 'x', '-', '\u0161', '\uff41', '\u0130']) {
      const broken = hex.slice(0, at) + bad + hex.slice(at + 1);
      assert.throws(() => hashFromHex(broken), DecodeError, `${bad} at ${at}`);
    }
  }
  for (const wrong of ['', 'ab'.repeat(31), 'ab'.repeat(33), `${'ab'.repeat(31)}a`]) assert.throws(() => hashFromHex(wrong), DecodeError);
});

test('hashesFromHex decodes a list as hashFromHex does each entry, and names the first bad one', () => {
  const rand = prng(301);
  const hexes = Array.from({ length: 50 }, () => toHex(Uint8Array.from({ length: 32 }, () => rand() & 0xff)));
  assert.deepEqual(
    hashesFromHex(hexes).map((h) => toHex(h)),
    hexes.map((h) => toHex(hashFromHex(h))),
  );
  assert.deepEqual(hashesFromHex([]), []);
  for (const at of [0, 17, 49]) {
    const broken = hexes.map((h, i) => (i === at ? `${h.slice(0, 40)}\u0161${h.slice(41)}` : h));
    assert.throws(
      () => hashesFromHex(broken),
      (e: unknown) => e instanceof DecodeError && e.message === `hash ${at} must be 64 hex characters`,
    );
  }
  assert.throws(() => hashesFromHex([...hexes, 'ab']), DecodeError);
});

test("a merkle branch leads the first leaf to merkleRoot's root, for every tree size up to 70", () => {
  const rand = prng(2459);
  for (let n = 1; n <= 70; n++) {
    const leaves = Array.from({ length: n }, () => Uint8Array.from({ length: 32 }, () => rand() & 0xff));
    const branch = merkleBranch(leaves.slice(1));
    assert.equal(branch.length, Math.ceil(Math.log2(n)), `one sibling per level for ${n} leaves`);
    assert.equal(hashToHex(rootFromBranch(leaves[0], branch)), hashToHex(merkleRoot(leaves).root), `${n} leaves`);
  }
});

test('merkle root: single leaf, odd count and the duplicate-leaf mutation', () => {
  const leaf = (b: number) => new Uint8Array(32).fill(b);
  assert.deepEqual(merkleRoot([leaf(1)]).root, leaf(1));
  const three = merkleRoot([leaf(1), leaf(2), leaf(3)]);
  const four = merkleRoot([leaf(1), leaf(2), leaf(3), leaf(3)]);
  // CVE-2012-2459: duplicating the last leaf keeps the root but must be flagged.
  assert.equal(hashToHex(three.root), hashToHex(four.root));
  assert.equal(three.mutated, false);
  assert.equal(four.mutated, true);
  assert.equal(
    merkleRoot([]).root.every((b) => b === 0),
    true,
  );
});
