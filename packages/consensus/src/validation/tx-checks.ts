import { isNullOutPoint, type OutPoint, type Transaction } from '../primitives/tx.ts';
import { ValidationError } from './errors.ts';
import { MAX_BLOCK_WEIGHT, WITNESS_SCALE_FACTOR, moneyRange } from './limits.ts';

const prevoutBytes = Buffer.alloc(36);

/** An outpoint's 36 bytes read as latin1: the cheapest string key for it (no hex, no concatenation). */
function prevoutId(p: OutPoint): string {
  prevoutBytes.set(p.txid, 0);
  prevoutBytes.writeUInt32LE(p.vout >>> 0, 32);
  return prevoutBytes.toString('latin1');
}

/**
 * Core's CheckTransaction: the rules that need nothing but the transaction itself. Throws a
 * ValidationError carrying Core's reject reason.
 */
export function checkTransaction(tx: Transaction): void {
  if (tx.inputs.length === 0) throw new ValidationError('bad-txns-vin-empty');
  if (tx.outputs.length === 0) throw new ValidationError('bad-txns-vout-empty');
  // Size limit without witness: the weight of the stripped form alone must fit in a block.
  if (tx.baseSize * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) throw new ValidationError('bad-txns-oversize');

  let total = 0n;
  for (const out of tx.outputs) {
    if (out.value < 0n) throw new ValidationError('bad-txns-vout-negative');
    if (!moneyRange(out.value)) throw new ValidationError('bad-txns-vout-toolarge');
    total += out.value;
    if (!moneyRange(total)) throw new ValidationError('bad-txns-txouttotal-toolarge');
  }

  const seen = new Set<string>();
  for (const input of tx.inputs) {
    const key = prevoutId(input.prevout);
    if (seen.has(key)) throw new ValidationError('bad-txns-inputs-duplicate');
    seen.add(key);
  }

  if (tx.isCoinbase()) {
    const len = tx.inputs[0].scriptSig.length;
    if (len < 2 || len > 100) throw new ValidationError('bad-cb-length');
  } else {
    for (const input of tx.inputs) {
      if (isNullOutPoint(input.prevout)) throw new ValidationError('bad-txns-prevout-null');
    }
  }
}
