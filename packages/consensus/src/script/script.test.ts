import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVector } from '../../test/vectors.ts';
import { DecodeError } from '../encoding/errors.ts';
import { fromHex, toHex } from '../encoding/hex.ts';
import { fromAsm, parseShortScript, toAsm } from './asm.ts';
import { Op, opName, opcodeFromName } from './opcodes.ts';
import {
  ScriptBuilder,
  ScriptNumError,
  checkMinimalPush,
  decodeScriptNum,
  encodeScriptNum,
  findAndDelete,
  parseScript,
  serializeOps,
} from './script.ts';
import { multisigScript, p2pkhScript, p2shScript, p2wpkhScript, p2wshScript, nullDataScript } from './standard.ts';

const SIG =
  '3045022100c233c3a8a510e03ad18b0a24694ef00c78101bfd5ac075b8c1037952ce26e91e02205aa5f8f88f29bb4ad5808ebc12abfd26bd791256f367b04c6d955f01f28a772401';
const PUBKEY = '03c2f2a9f5f8c5d1a5c0e1b0f4c7c4d3a6b5f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8';

function scriptTestScripts(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const row of readVector<unknown[][]>('bitcoin-core/script_tests.json')) {
    if (row.length < 4) continue;
    const pos = Array.isArray(row[0]) ? 1 : 0;
    for (const text of [row[pos], row[pos + 1]] as string[]) {
      if (text.includes('#')) continue; // taproot placeholders
      out.push(parseShortScript(text));
    }
  }
  return out;
}

test('opcode names follow Core GetOpName, and the parser takes both spellings', () => {
  assert.equal(opName(Op.OP_0), '0');
  assert.equal(opName(Op.OP_1NEGATE), '-1');
  assert.equal(opName(Op.OP_16), '16');
  assert.equal(opName(Op.OP_CHECKLOCKTIMEVERIFY), 'OP_CHECKLOCKTIMEVERIFY');
  assert.equal(opName(Op.OP_CHECKSEQUENCEVERIFY), 'OP_CHECKSEQUENCEVERIFY');
  assert.equal(opName(Op.OP_CHECKSIGADD), 'OP_CHECKSIGADD');
  assert.equal(opName(0xbb), 'OP_UNKNOWN');
  assert.equal(opName(Op.OP_INVALIDOPCODE), 'OP_INVALIDOPCODE');
  assert.equal(opcodeFromName('OP_ADD'), Op.OP_ADD);
  assert.equal(opcodeFromName('ADD'), Op.OP_ADD);
  assert.equal(opcodeFromName('NOP2'), Op.OP_CHECKLOCKTIMEVERIFY);
  assert.equal(opcodeFromName('OP_NOP3'), Op.OP_CHECKSEQUENCEVERIFY);
  assert.equal(opcodeFromName('RESERVED'), Op.OP_RESERVED);
  // Numbers are not opcode names in Core's parser, and OP_CHECKSIGADD is past OP_NOP10.
  assert.equal(opcodeFromName('OP_1'), undefined);
  assert.equal(opcodeFromName('CHECKSIGADD'), undefined);
});

test('script numbers: minimal encoding, sign bit, size limits', () => {
  const cases: [number, string][] = [
    [0, ''],
    [1, '01'],
    [-1, '81'],
    [127, '7f'],
    [128, '8000'],
    [-128, '8080'],
    [255, 'ff00'],
    [256, '0001'],
    [-255, 'ff80'],
    [0x7fffffff, 'ffffff7f'],
    [-0x7fffffff, 'ffffffff'],
    [0x80000000, '0000008000'],
    [0xffffffff, 'ffffffff00'],
    [2 ** 39 - 1, 'ffffffff7f'],
  ];
  for (const [n, hex] of cases) {
    assert.equal(toHex(encodeScriptNum(n)), hex, `encode ${n}`);
    assert.equal(decodeScriptNum(fromHex(hex), true, 5), n, `decode ${hex}`);
  }
  // Non-minimal forms decode without MINIMALDATA and are rejected with it.
  for (const hex of ['00', '80', '0100', '0080', 'ff0000']) {
    assert.throws(() => decodeScriptNum(fromHex(hex), true), ScriptNumError, hex);
    decodeScriptNum(fromHex(hex), false);
  }
  assert.ok(Object.is(decodeScriptNum(fromHex('80'), false), 0));
  assert.equal(decodeScriptNum(fromHex('0100'), false), 1);
  assert.throws(() => decodeScriptNum(fromHex('0000008000'), false), ScriptNumError);
  assert.equal(decodeScriptNum(fromHex('0000008000'), false, 5), 0x80000000);
});

test('CheckMinimalPush', () => {
  assert.ok(checkMinimalPush(new Uint8Array(0), Op.OP_0));
  assert.ok(!checkMinimalPush(new Uint8Array(0), Op.OP_PUSHDATA1));
  assert.ok(!checkMinimalPush(Uint8Array.of(5), 1));
  assert.ok(!checkMinimalPush(Uint8Array.of(0x81), 1));
  assert.ok(checkMinimalPush(Uint8Array.of(0x11), 1));
  assert.ok(checkMinimalPush(new Uint8Array(75), 75));
  assert.ok(!checkMinimalPush(new Uint8Array(75), Op.OP_PUSHDATA1));
  assert.ok(checkMinimalPush(new Uint8Array(76), Op.OP_PUSHDATA1));
  assert.ok(checkMinimalPush(new Uint8Array(256), Op.OP_PUSHDATA2));
  assert.ok(!checkMinimalPush(new Uint8Array(256), Op.OP_PUSHDATA4));
});

test('parseScript splits pushes and opcodes; serializeOps restores the bytes', () => {
  const script = fromHex(`4c0201024d0300aabbcc4e01000000dd00${'14'}${'11'.repeat(20)}87`);
  const ops = parseScript(script);
  assert.deepEqual(
    ops.map((o) => [o.opcode, o.data && toHex(o.data), o.offset]),
    [
      [Op.OP_PUSHDATA1, '0102', 0],
      [Op.OP_PUSHDATA2, 'aabbcc', 4],
      [Op.OP_PUSHDATA4, 'dd', 10],
      [Op.OP_0, '', 16],
      [20, '11'.repeat(20), 17],
      [Op.OP_EQUAL, undefined, 38],
    ],
  );
  assert.equal(toHex(serializeOps(ops)), toHex(script));
});

test('parseScript: a truncated push is a DecodeError, never a crash', () => {
  for (const hex of ['01', '0201', '4c', '4c05aa', '4d01', '4d0500aa', '4e010000', '4e05000000aabb', '51ac4c']) {
    assert.throws(
      () => parseScript(fromHex(hex)),
      (e: unknown) => e instanceof DecodeError && e.code === 'truncated',
      hex,
    );
  }
});

test('parse → serialize is the identity for every well-formed script_tests.json script', (t) => {
  let n = 0;
  let malformed = 0;
  for (const script of scriptTestScripts()) {
    let ops;
    try {
      ops = parseScript(script);
    } catch (e) {
      assert.ok(e instanceof DecodeError);
      malformed++;
      continue;
    }
    assert.equal(toHex(serializeOps(ops)), toHex(script));
    n++;
  }
  t.diagnostic(`${n} scripts round-tripped, ${malformed} malformed scripts rejected`);
  assert.ok(n > 2000 && malformed > 0);
});

test('toAsm matches Core ScriptToAsmStr', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['5100', '1 0'],
    ['4f', '-1'],
    ['0181', '-1'],
    ['0101', '1'], // not minimal, still printed as a number
    ['0480000000', '128'],
    ['0100', '0'],
    ['0180', '0'], // negative zero
    ['04ffffffff', '-2147483647'],
    ['050000000080', '0000000080'],
    [`76a914${'11'.repeat(20)}88ac`, `OP_DUP OP_HASH160 ${'11'.repeat(20)} OP_EQUALVERIFY OP_CHECKSIG`],
    ['b1b2b0b3b9', 'OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_NOP1 OP_NOP4 OP_NOP10'],
    ['50babbff', 'OP_RESERVED OP_CHECKSIGADD OP_UNKNOWN OP_INVALIDOPCODE'],
    ['4c', '[error]'],
    ['51024c', '1 [error]'],
    ['4d0300aabbcc', '-5028778'],
  ];
  for (const [hex, asm] of cases) assert.equal(toAsm(fromHex(hex)), asm, hex);
});

test('toAsm with sighash decoding, as Core shows scriptSigs', () => {
  const scriptSig = new ScriptBuilder().push(fromHex(SIG)).push(fromHex(PUBKEY)).build();
  assert.equal(toAsm(scriptSig, true), `${SIG.slice(0, -2)}[ALL] ${PUBKEY}`);
  assert.equal(toAsm(scriptSig, false), `${SIG} ${PUBKEY}`);
  for (const [byte, name] of [
    ['02', 'NONE'],
    ['03', 'SINGLE'],
    ['81', 'ALL|ANYONECANPAY'],
    ['82', 'NONE|ANYONECANPAY'],
    ['83', 'SINGLE|ANYONECANPAY'],
  ]) {
    const sig = fromHex(SIG.slice(0, -2) + byte);
    assert.equal(toAsm(new ScriptBuilder().push(sig).build(), true), `${SIG.slice(0, -2)}[${name}]`);
  }
  // Undefined hash types and non-DER data stay plain hex.
  for (const hex of [`${SIG.slice(0, -2)}00`, `${SIG.slice(0, -2)}84`, SIG.slice(2)]) {
    assert.equal(toAsm(new ScriptBuilder().push(fromHex(hex)).build(), true), hex);
  }
  // OP_RETURN data is never decoded, even when it looks like a signature.
  const nullData = new ScriptBuilder().op(Op.OP_RETURN).push(fromHex(SIG)).build();
  assert.equal(toAsm(nullData, true), `OP_RETURN ${SIG}`);
});

test('asm round trips: minimal scripts exactly, any script_tests.json script up to asm', (t) => {
  const keys = [PUBKEY, `02${'22'.repeat(32)}`, `04${'33'.repeat(64)}`].map(fromHex);
  const canonical = [
    p2pkhScript(fromHex('11'.repeat(20))),
    p2shScript(fromHex('22'.repeat(20))),
    p2wpkhScript(fromHex('33'.repeat(20))),
    p2wshScript(fromHex('44'.repeat(32))),
    multisigScript(2, keys),
    nullDataScript(fromHex('deadbeef'), fromHex('00'.repeat(80))),
    new ScriptBuilder().push(fromHex(SIG)).push(keys[0]).build(),
    new ScriptBuilder().pushInt(500000).op(Op.OP_CHECKLOCKTIMEVERIFY).op(Op.OP_DROP).pushInt(-1000).pushInt(0).pushInt(16).build(),
  ];
  for (const script of canonical) {
    for (const decode of [false, true]) {
      assert.equal(toHex(fromAsm(toAsm(script, decode))), toHex(script), toAsm(script, decode));
    }
  }
  let n = 0;
  for (const script of scriptTestScripts()) {
    const asm = toAsm(script);
    if (asm.includes('[error]') || asm.includes('OP_UNKNOWN')) continue;
    assert.equal(toAsm(fromAsm(asm)), asm);
    n++;
  }
  t.diagnostic(`${canonical.length} canonical scripts round-tripped byte for byte, ${n} script_tests.json scripts up to asm`);
  assert.ok(n > 2000);
  assert.throws(() => fromAsm('OP_DUP [error]'), DecodeError);
  assert.throws(() => fromAsm(`${SIG.slice(0, -2)}[BOGUS]`), DecodeError);
});

test('script_tests notation (Core ParseScript)', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['0 1 16 17 -1 -2', '00516001114f0182'],
    ['0x4c 0x01 0x07', '4c0107'],
    ["'Az'", '02417a'],
    ["''", '00'],
    ['DUP OP_HASH160 NOP2 CHECKSEQUENCEVERIFY', '76a9b1b2'],
    ['4294967295 -4294967295', '05ffffffff0005ffffffff80'],
    ['  1\t2\n', '5152'],
  ];
  for (const [text, hex] of cases) assert.equal(toHex(parseShortScript(text)), hex, text);
  for (const bad of ['4294967296', 'FOO', '0x', '0xabc', 'OP_1', 'CHECKSIGADD']) {
    assert.throws(() => parseShortScript(bad), DecodeError, bad);
  }
});

test('FindAndDelete: matches start at operation boundaries and may span operations', () => {
  const cases: [string, string, string, number][] = [
    ['0302ff03', '0302ff03', '', 1],
    ['0302ff030302ff03', '0302ff03', '', 2],
    ['0302ff030302ff03', '02', '0302ff030302ff03', 0],
    ['0302ff030302ff03', 'ff', '0302ff030302ff03', 0],
    ['00000051', '00', '51', 3], // an empty signature deletes OP_0s
    ['515253', '5152', '53', 1],
    ['02515253', '5152', '02515253', 0],
    ['514c', '51', '4c', 1], // the unparseable tail is kept
    ['ab', '', 'ab', 0],
  ];
  for (const [script, pattern, expected, count] of cases) {
    const r = findAndDelete(fromHex(script), fromHex(pattern));
    assert.deepEqual([toHex(r.script), r.count], [expected, count], `${script} - ${pattern}`);
  }
});

test('ScriptBuilder picks Core push opcodes', () => {
  assert.equal(toHex(new ScriptBuilder().push(new Uint8Array(0)).build()), '00');
  assert.equal(toHex(new ScriptBuilder().push(Uint8Array.of(1)).build()), '0101');
  assert.equal(toHex(new ScriptBuilder().push(new Uint8Array(76)).build()).slice(0, 4), '4c4c');
  assert.equal(toHex(new ScriptBuilder().push(new Uint8Array(256)).build()).slice(0, 6), '4d0001');
  assert.equal(toHex(new ScriptBuilder().push(new Uint8Array(65536)).build()).slice(0, 10), '4e00000100');
  assert.equal(toHex(new ScriptBuilder().pushInt(0).pushInt(-1).pushInt(16).pushInt(17).pushInt(-17).build()), '004f6001110191');
  assert.throws(() => new ScriptBuilder().pushWith(5, new Uint8Array(4)), RangeError);
});
