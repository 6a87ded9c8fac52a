import type { Transaction } from '@cs/consensus';

/*
 * Core limits the mempool by DynamicMemoryUsage, its estimate of the heap the pool holds, not by
 * the transactions' serialized size. This is the same kind of estimate for V8, calibrated by
 * measuring the heap growth of 100,000 decoded transactions on Node 20 (process.memoryUsage()
 * after forced GC) and rounding up for the pool's own indexes:
 *
 * - per entry: the Transaction and MempoolEntry objects, the txid/wtxid hex strings and their two
 *   index slots, the parent/child sets;
 * - per input: the input and outpoint objects, the 32-byte txid, scriptSig, witness array, and
 *   the outpoint → spender index slot with its string key;
 * - per witness item and per output: the small objects and typed arrays they live in;
 * - per serialized byte: twice, since a transaction caches both its witness and its stripped
 *   serialization once hashed.
 *
 * The result is roughly 20 times a typical transaction's virtual size, so a 300 MB pool holds
 * about 100,000 ordinary transactions.
 */
const PER_ENTRY = 1500;
const PER_INPUT = 450;
const PER_WITNESS_ITEM = 80;
const PER_OUTPUT = 250;
const PER_SERIALIZED_BYTE = 2;

export function estimateEntryUsage(tx: Transaction): number {
  let witnessItems = 0;
  for (const input of tx.inputs) witnessItems += input.witness.length;
  return PER_ENTRY + PER_INPUT * tx.inputs.length + PER_WITNESS_ITEM * witnessItems + PER_OUTPUT * tx.outputs.length + PER_SERIALIZED_BYTE * tx.size;
}
