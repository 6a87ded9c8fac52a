import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Op,
  ScriptBuilder,
  Transaction,
  hash160,
  multisigScript,
  nullDataScript,
  p2pkhScript,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  sha256,
  witnessProgramScript,
  type TxIn,
  type TxOut,
} from '@cs/consensus';
import { feeForSize, feeRateOf } from './feerate.ts';
import { DEFAULT_POLICY, MAX_STANDARD_TX_SIGOPS_COST, virtualSize, type PolicyOptions } from './policy.ts';
import { areInputsStandard, dustThreshold, isWitnessStandard, standardTxViolation } from './standard.ts';

const KEY = Uint8Array.of(0x02, ...new Uint8Array(32).fill(1));
const P2WPKH = p2wpkhScript(new Uint8Array(20).fill(3));

function input(over: Partial<TxIn> = {}): TxIn {
  return { prevout: { txid: new Uint8Array(32).fill(9), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [], ...over };
}

function tx(outputs: TxOut[], over: { version?: number; inputs?: TxIn[] } = {}): Transaction {
  return new Transaction({ version: over.version ?? 2, inputs: over.inputs ?? [input()], outputs, locktime: 0 });
}

const pay = (scriptPubKey: Uint8Array, value = 10_000n): TxOut => ({ value, scriptPubKey });
const violation = (t: Transaction, opts: PolicyOptions = DEFAULT_POLICY) => standardTxViolation(t, opts);

test('fee rates round fees up and rates down, as CFeeRate', () => {
  assert.equal(feeForSize(1000n, 141), 141n);
  assert.equal(feeForSize(1500n, 141), 212n); // 211.5 rounds up
  assert.equal(feeForSize(1n, 10), 1n); // never zero for a positive rate
  assert.equal(feeForSize(0n, 500), 0n);
  assert.equal(feeRateOf(141n, 141), 1000n);
  assert.equal(feeRateOf(211n, 141), 1496n); // 1496.45 truncated
});

test('virtual size counts sigop cost at bytespersigop when it exceeds the weight', () => {
  assert.equal(virtualSize(561, 4, 20), 141);
  assert.equal(virtualSize(561, 400, 20), 2000);
  assert.equal(MAX_STANDARD_TX_SIGOPS_COST, 16_000);
});

test('dust thresholds at 3000 units/kvB match Core for each output type', () => {
  const rate = DEFAULT_POLICY.dustRelayFee;
  assert.equal(dustThreshold(pay(p2pkhScript(new Uint8Array(20))), rate), 546n);
  assert.equal(dustThreshold(pay(P2WPKH), rate), 294n);
  assert.equal(dustThreshold(pay(p2wshScript(new Uint8Array(32))), rate), 330n);
  assert.equal(dustThreshold(pay(p2shScript(new Uint8Array(20))), rate), 540n);
  assert.equal(dustThreshold(pay(nullDataScript(Uint8Array.of(1))), rate), 0n);
  assert.equal(violation(tx([pay(P2WPKH, 293n)])), 'dust');
  assert.equal(violation(tx([pay(P2WPKH, 294n)])), null);
  assert.equal(violation(tx([pay(p2pkhScript(new Uint8Array(20)), 545n)])), 'dust');
});

test('IsStandardTx: version, size, scriptSig and output rules with their reasons', () => {
  assert.equal(violation(tx([pay(P2WPKH)], { version: 1 })), null);
  assert.equal(violation(tx([pay(P2WPKH)], { version: 0 })), 'version');
  assert.equal(violation(tx([pay(P2WPKH)], { version: 3 })), 'version');
  // 100,001 vbytes of outputs: over 400,000 weight.
  const big = Array.from({ length: 2_400 }, () => pay(p2wshScript(new Uint8Array(32))));
  assert.equal(violation(tx(big)), 'tx-size');
  assert.equal(
    violation(tx([pay(P2WPKH)], { inputs: [input({ scriptSig: new ScriptBuilder().push(new Uint8Array(1651)).build() })] })),
    'scriptsig-size',
  );
  assert.equal(violation(tx([pay(P2WPKH)], { inputs: [input({ scriptSig: Uint8Array.of(Op.OP_1, Op.OP_DROP) })] })), 'scriptsig-not-pushonly');
  assert.equal(violation(tx([pay(Uint8Array.of(Op.OP_1))])), 'scriptpubkey');
  // Future witness versions may be paid to; only spending them is non-standard.
  assert.equal(violation(tx([pay(witnessProgramScript(1, new Uint8Array(32)))])), null);
});

test('bare multisig: up to 3 keys, and only when permitted', () => {
  const keys = (n: number) => Array.from({ length: n }, () => KEY);
  assert.equal(violation(tx([pay(multisigScript(1, keys(3)))])), null);
  assert.equal(violation(tx([pay(multisigScript(1, keys(4)))])), 'scriptpubkey');
  assert.equal(violation(tx([pay(multisigScript(1, keys(2)))]), { ...DEFAULT_POLICY, permitBareMultisig: false }), 'bare-multisig');
});

test('OP_RETURN: one output of at most 83 bytes, none with -datacarrier=0', () => {
  const data80 = nullDataScript(new Uint8Array(80));
  assert.equal(data80.length, 83);
  assert.equal(violation(tx([pay(P2WPKH), pay(data80, 0n)])), null);
  assert.equal(violation(tx([pay(P2WPKH), pay(nullDataScript(new Uint8Array(81)), 0n)])), 'scriptpubkey');
  assert.equal(violation(tx([pay(P2WPKH), pay(data80, 0n), pay(nullDataScript(Uint8Array.of(1)), 0n)])), 'multi-op-return');
  assert.equal(violation(tx([pay(P2WPKH), pay(data80, 0n)]), { ...DEFAULT_POLICY, maxDatacarrierBytes: null }), 'scriptpubkey');
});

test('AreInputsStandard: spendable types only, P2SH redeem scripts within 15 sigops', () => {
  const t = tx([pay(P2WPKH)]);
  assert.equal(areInputsStandard(t, [pay(P2WPKH)]), true);
  assert.equal(areInputsStandard(t, [pay(Uint8Array.of(Op.OP_1))]), false);
  assert.equal(areInputsStandard(t, [pay(witnessProgramScript(1, new Uint8Array(32)))]), false);

  const redeem = (sigops: number) => new Uint8Array([...Array<number>(sigops).fill(Op.OP_CHECKSIG), Op.OP_1]);
  for (const [sigops, ok] of [
    [15, true],
    [16, false],
  ] as const) {
    const script = redeem(sigops);
    const spendP2sh = tx([pay(P2WPKH)], { inputs: [input({ scriptSig: new ScriptBuilder().push(script).build() })] });
    assert.equal(areInputsStandard(spendP2sh, [pay(p2shScript(hash160(script)))]), ok, `${sigops} sigops`);
  }
});

test('IsWitnessStandard: witness only for witness programs, P2WSH size limits', () => {
  const witnessScript = Uint8Array.of(Op.OP_1);
  const p2wsh = pay(p2wshScript(sha256(witnessScript)));
  const spendWith = (witness: Uint8Array[], scriptSig: Uint8Array = new Uint8Array(0)) =>
    tx([pay(P2WPKH)], { inputs: [input({ witness, scriptSig })] });

  assert.equal(isWitnessStandard(spendWith([witnessScript]), [p2wsh]), true);
  assert.equal(isWitnessStandard(spendWith([new Uint8Array(80), witnessScript]), [p2wsh]), true);
  assert.equal(isWitnessStandard(spendWith([new Uint8Array(81), witnessScript]), [p2wsh]), false);
  assert.equal(isWitnessStandard(spendWith([...Array.from({ length: 100 }, () => new Uint8Array(1)), witnessScript]), [p2wsh]), true);
  assert.equal(isWitnessStandard(spendWith([...Array.from({ length: 101 }, () => new Uint8Array(1)), witnessScript]), [p2wsh]), false);
  const longScript = new Uint8Array(3601).fill(Op.OP_NOP);
  assert.equal(isWitnessStandard(spendWith([longScript]), [pay(p2wshScript(sha256(longScript)))]), false);
  // A witness on a non-witness output is junk anyone could add.
  assert.equal(isWitnessStandard(spendWith([new Uint8Array(1)]), [pay(p2pkhScript(new Uint8Array(20)))]), false);
  // P2SH-wrapped P2WSH: the limits apply to the redeemed program.
  const nested = p2wshScript(sha256(witnessScript));
  const scriptSig = new ScriptBuilder().push(nested).build();
  assert.equal(isWitnessStandard(spendWith([new Uint8Array(81), witnessScript], scriptSig), [pay(p2shScript(hash160(nested)))]), false);
  assert.equal(isWitnessStandard(spendWith([witnessScript], scriptSig), [pay(p2shScript(hash160(nested)))]), true);
});
