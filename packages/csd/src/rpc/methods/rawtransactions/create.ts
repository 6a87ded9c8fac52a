/** createrawtransaction: an unsigned transaction from the inputs and outputs given, as Core's AddInputs and AddOutputs build it. */
import { Transaction, addressToScript, fromHex, hashFromHex, nullDataScript, type TxIn, type TxOut } from '@cs/consensus';
import { amountFromValue } from '@cs/runtime/amount';
import { isJsonObject, jsonTypeName, type JsonObject, type JsonValue } from '../../../format/json-value.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { jsonInteger, parseHashV } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { SOME_TXID } from '../examples.ts';
import { HEX_BYTES } from './decode.ts';

/** Core's LOCKTIME_MAX and SEQUENCE_FINAL (both 0xffffffff). */
const UINT32_MAX = 0xffffffff;
/** Core's MAX_BIP125_RBF_SEQUENCE: an input at or below this signals replaceability. */
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
/** Core's MAX_SEQUENCE_NONFINAL: the highest sequence that still lets a locktime count. */
const MAX_SEQUENCE_NONFINAL = 0xfffffffe;

function expectObject(value: JsonValue): JsonObject {
  if (isJsonObject(value)) return value;
  throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(value)} is not of expected type object`);
}

/** Core's AddInputs: outpoints with a sequence chosen from `replaceable` and the locktime, unless given. */
function parseInputs(inputs: readonly JsonValue[], replaceable: boolean | undefined, locktime: number): TxIn[] {
  return inputs.map((value) => {
    const o = expectObject(value);
    const txid = hashFromHex(parseHashV(o.txid, 'txid'));
    if (typeof o.vout !== 'number') throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, missing vout key');
    const vout = jsonInteger(o.vout, -0x80000000, 0x7fffffff);
    if (vout < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    let sequence = (replaceable ?? true) ? MAX_BIP125_RBF_SEQUENCE : locktime ? MAX_SEQUENCE_NONFINAL : UINT32_MAX;
    // As Core, a sequence that is not a number is ignored rather than refused.
    if (typeof o.sequence === 'number') {
      sequence = jsonInteger(o.sequence, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      if (sequence < 0 || sequence > UINT32_MAX) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, sequence number is out of range');
      }
    }
    return { prevout: { txid, vout }, scriptSig: new Uint8Array(0), sequence, witness: [] };
  });
}

/**
 * Core's NormalizeOutputs: an object of address → amount (and "data" → hex), or an array of
 * one-key objects, which may repeat a key (a repeated address is then refused as a duplicate).
 */
function outputPairs(outputs: JsonValue): [string, JsonValue][] {
  if (outputs === null) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, output argument must be non-null');
  if (isJsonObject(outputs)) return Object.entries(outputs).map(([k, v]) => [k, v ?? null]);
  if (!Array.isArray(outputs)) {
    throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(outputs)} is not of expected type array`);
  }
  return (outputs as readonly JsonValue[]).map((pair) => {
    if (!isJsonObject(pair)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, key-value pair not an object as expected');
    const entries = Object.entries(pair);
    if (entries.length !== 1) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, key-value pair must contain exactly one key');
    return [entries[0][0], entries[0][1] ?? null];
  });
}

/** Core's ParseOutputs + AddOutputs, in the order given. */
function parseOutputs(ctx: ChainContext, outputs: JsonValue): TxOut[] {
  const seen = new Set<string>();
  let hasData = false;
  return outputPairs(outputs).map(([key, value]) => {
    if (key === 'data') {
      if (hasData) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, duplicate key: data');
      hasData = true;
      // Core reads the value's text whatever its JSON type (a number's digits are hex too).
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (!HEX_BYTES.test(text)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Data must be hexadecimal string (not '${text}')`);
      return { value: 0n, scriptPubKey: nullDataScript(fromHex(text)) };
    }
    // Core parses the amount before judging the address, so a bad amount is reported first.
    const amount = amountFromValue(value);
    let scriptPubKey: Uint8Array;
    try {
      scriptPubKey = addressToScript(key, ctx.params.address);
    } catch {
      throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `Invalid cs address: ${key}`);
    }
    // Duplicates are by destination, so two spellings of one address (bech32 case) count as one.
    const destination = Buffer.from(scriptPubKey).toString('hex');
    if (seen.has(destination)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid parameter, duplicated address: ${key}`);
    seen.add(destination);
    return { value: amount, scriptPubKey };
  });
}

export function registerCreateMethods(registry: RpcRegistry, ctx: ChainContext): void {
  registry.register({
    name: 'createrawtransaction',
    category: 'Rawtransactions',
    description:
      'Create a transaction spending the given inputs and creating new outputs.\n' +
      'Outputs can be addresses or data.\n' +
      'Returns hex-encoded raw transaction.\n' +
      "Note that the transaction's inputs are not signed, and\n" +
      'it is not stored in the wallet or transmitted to the network.',
    params: [
      {
        name: 'inputs',
        type: 'array',
        description:
          'The inputs: [{"txid": "hex", "vout": n, "sequence": n}, ...]\n' +
          'txid: the transaction id; vout: the output number; sequence (optional): the sequence number\n' +
          "(default depends on the value of the 'replaceable' and 'locktime' arguments)",
      },
      {
        name: 'outputs',
        type: 'any',
        description:
          'The outputs specified as key-value pairs.\n' +
          "Each key may only appear once, i.e. there can only be one 'data' output, and no address may be duplicated.\n" +
          'At least one output of either type must be specified.\n' +
          'An array of one-key objects: [{"address": amount}, {"data": "hex"}, ...], where address is a cs address\n' +
          'and amount is in coins, and "data" is hex-encoded data that becomes a part of an OP_RETURN output.\n' +
          'For compatibility reasons, a dictionary, which holds the key-value pairs directly, is also\n' +
          'accepted as second parameter.',
      },
      { name: 'locktime', type: 'integer', default: 0, description: 'Raw locktime. Non-0 value also locktime-activates inputs' },
      {
        name: 'replaceable',
        type: 'boolean',
        optional: true,
        description:
          'Marks this transaction as BIP125-replaceable (default true).\n' +
          'Allows this transaction to be replaced by a transaction with higher fees. If provided, it is an error if explicit sequence numbers are incompatible.',
      },
    ],
    result: '"hex"    (string) hex string of the transaction',
    examples: [
      { args: [[{ txid: SOME_TXID, vout: 0 }], [{ csrt1qqyqszqgpqyqszqgpqyqszqgpqyqszqgpjvle9z: 0.01 }]] },
      { args: [[{ txid: SOME_TXID, vout: 0 }], [{ data: '00010203' }]], description: 'An OP_RETURN output' },
    ],
    handler: async ([inputs, outputs, locktime, replaceable]) => {
      if (locktime < 0 || locktime > UINT32_MAX) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, locktime out of range');
      const txInputs = parseInputs(inputs, replaceable, locktime);
      const txOutputs = parseOutputs(ctx, outputs);
      // Only an explicit `replaceable: true` is checked against the sequences the caller chose.
      if (replaceable === true && txInputs.length > 0 && !txInputs.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE)) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter combination: Sequence number(s) contradict replaceable option');
      }
      const tx = new Transaction({ version: 2, inputs: txInputs, outputs: txOutputs, locktime });
      return Buffer.from(tx.encode()).toString('hex');
    },
  });
}
