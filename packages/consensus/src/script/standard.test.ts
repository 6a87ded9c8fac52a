import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, toHex } from '../encoding/hex.ts';
import { parseShortScript } from './asm.ts';
import {
  isPayToScriptHash,
  isPushOnly,
  isUnspendable,
  isWitnessProgram,
  multisigScript,
  nullDataScript,
  p2pkScript,
  p2pkhScript,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  solver,
  witnessProgram,
  witnessProgramScript,
} from './standard.ts';

const H20 = fromHex('11'.repeat(20));
const H32 = fromHex('22'.repeat(32));
const KEY33 = fromHex(`02${'33'.repeat(32)}`);
const KEY65 = fromHex(`04${'44'.repeat(64)}`);

function solve(script: Uint8Array): [string, string[]] {
  const s = solver(script);
  return [s.type, s.solutions.map(toHex)];
}

test('builders produce the standard templates', () => {
  assert.equal(toHex(p2pkhScript(H20)), `76a914${'11'.repeat(20)}88ac`);
  assert.equal(toHex(p2shScript(H20)), `a914${'11'.repeat(20)}87`);
  assert.equal(toHex(p2wpkhScript(H20)), `0014${'11'.repeat(20)}`);
  assert.equal(toHex(p2wshScript(H32)), `0020${'22'.repeat(32)}`);
  assert.equal(toHex(p2pkScript(KEY33)), `21${toHex(KEY33)}ac`);
  assert.equal(toHex(multisigScript(1, [KEY33, KEY65])), `5121${toHex(KEY33)}41${toHex(KEY65)}52ae`);
  assert.equal(toHex(nullDataScript(fromHex('cafe'))), '6a02cafe');
  assert.equal(toHex(witnessProgramScript(16, fromHex('abcd'))), '6002abcd');
  assert.throws(() => p2pkhScript(H32), RangeError);
  assert.throws(() => multisigScript(3, [KEY33, KEY65]), RangeError);
  assert.throws(() => witnessProgramScript(1, new Uint8Array(41)), RangeError);
});

test('Solver classifies with Core type names and solutions', () => {
  assert.deepEqual(solve(p2pkhScript(H20)), ['pubkeyhash', ['11'.repeat(20)]]);
  assert.deepEqual(solve(p2shScript(H20)), ['scripthash', ['11'.repeat(20)]]);
  assert.deepEqual(solve(p2wpkhScript(H20)), ['witness_v0_keyhash', ['11'.repeat(20)]]);
  assert.deepEqual(solve(p2wshScript(H32)), ['witness_v0_scripthash', ['22'.repeat(32)]]);
  assert.deepEqual(solve(p2pkScript(KEY33)), ['pubkey', [toHex(KEY33)]]);
  assert.deepEqual(solve(p2pkScript(KEY65)), ['pubkey', [toHex(KEY65)]]);
  assert.deepEqual(solve(multisigScript(1, [KEY33, KEY65])), ['multisig', ['01', toHex(KEY33), toHex(KEY65), '02']]);
  assert.deepEqual(solve(nullDataScript(fromHex('cafe'), new Uint8Array(0))), ['nulldata', []]);
  assert.deepEqual(solve(fromHex('6a')), ['nulldata', []]);
  // Taproot is not known here: any version 1+ program is witness_unknown.
  assert.deepEqual(solve(witnessProgramScript(1, H32)), ['witness_unknown', ['01', '22'.repeat(32)]]);
  assert.deepEqual(solve(witnessProgramScript(16, fromHex('abcd'))), ['witness_unknown', ['10', 'abcd']]);

  const nonstandard = [
    '',
    '6a4c', // OP_RETURN with a truncated push
    '6a76', // OP_RETURN followed by a non-push
    `0015${'11'.repeat(21)}`, // v0 program of a length without meaning
    `21${`05${'33'.repeat(32)}`}ac`, // pubkey with an invalid header
    `5121${toHex(KEY33)}51ae00`, // a byte after CHECKMULTISIG
    `5221${toHex(KEY33)}51ae`, // m > n
    `0021${toHex(KEY33)}51ae`, // m = 0
    `0101${`21${toHex(KEY33)}`}51ae`, // m pushed non-minimally
    '51ae', // no keys
    `76a914${'11'.repeat(20)}88ad`,
  ];
  for (const hex of nonstandard) assert.deepEqual(solve(fromHex(hex)), ['nonstandard', []], hex);
  // Counts above 16 need a push; a minimal one counts like OP_n (Core's GetScriptNumber).
  const keys17 = `21${toHex(KEY33)}`.repeat(17);
  assert.equal(solve(fromHex(`0111${keys17}0111ae`))[0], 'multisig');
  assert.equal(solve(fromHex(`0111${keys17}021100ae`))[0], 'nonstandard');
});

test('script predicates', () => {
  assert.ok(isPayToScriptHash(p2shScript(H20)));
  assert.ok(!isPayToScriptHash(p2wpkhScript(H20)));
  assert.deepEqual(witnessProgram(p2wshScript(H32)), { version: 0, program: H32 });
  assert.equal(witnessProgram(fromHex('0001ff')), null); // 1-byte program
  assert.equal(witnessProgram(fromHex(`0029${'00'.repeat(41)}`)), null); // 41 bytes
  assert.equal(witnessProgram(fromHex('011000')), null); // a push, not OP_16
  assert.ok(isWitnessProgram(fromHex(`5128${'00'.repeat(40)}`)));
  assert.ok(isPushOnly(parseShortScript("0 1 16 -1 RESERVED 'abc' 0x4c 0x00")));
  assert.ok(!isPushOnly(parseShortScript('1 NOP')));
  assert.ok(!isPushOnly(fromHex('4c')));
  assert.ok(isUnspendable(fromHex('6a')));
  assert.ok(isUnspendable(new Uint8Array(10_001)));
  assert.ok(!isUnspendable(p2pkhScript(H20)));
});
