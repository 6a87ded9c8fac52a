/**
 * The Rawtransactions category, as Core's rpc/rawtransaction.cpp and rpc/mempool.cpp offer it:
 * looking transactions up, decoding transactions and scripts, building unsigned transactions, and
 * submitting (or test-submitting) signed ones to the mempool.
 */
import {
  COIN,
  DecodeError,
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_SCRIPT_SIZE,
  Op,
  ScriptReader,
  Transaction,
  addressToScript,
  fromHex,
  hash160,
  hashFromHex,
  hashToHex,
  isUnspendable,
  nullDataScript,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  scriptToAddress,
  sha256,
  solver,
  type TxIn,
  type TxOut,
} from '@cs/consensus';
import type { BlockIndexEntry } from '../../chain/block-index.ts';
import type { Coin } from '../../chain/coins.ts';
import { amountToJson, amountFromValue } from '@cs/runtime/amount';
import { scriptPubKeyToJson, txPlacementToJson, txToJson } from '../../format/json.ts';
import type { AcceptFailure } from '../../mempool/results.ts';
import type { ChainContext } from '../context.ts';
import { feeForSize, feeRateOf, feeRateToCoins, type FeeRate } from '../../policy/feerate.ts';
import { DEFAULT_MAX_RAW_TX_FEE_RATE } from '../../policy/policy.ts';
import { RpcError, RpcErrorCode } from '../errors.ts';
import { isJsonObject, jsonTypeName, type JsonObject, type JsonValue } from '../../format/json-value.ts';
import type { RpcRegistry } from '../registry.ts';
import { isHexOrEmpty, jsonInteger, jsonString, parseHashV, parseVerbosity } from '../params.ts';

/** Core's MAX_PACKAGE_COUNT: testmempoolaccept takes at most this many transactions. */
export const MAX_PACKAGE_COUNT = 25;
/** Core's LOCKTIME_MAX and SEQUENCE_FINAL (both 0xffffffff). */
const UINT32_MAX = 0xffffffff;
/** Core's MAX_BIP125_RBF_SEQUENCE: an input at or below this signals replaceability. */
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
/** Core's MAX_SEQUENCE_NONFINAL: the highest sequence that still lets a locktime count. */
const MAX_SEQUENCE_NONFINAL = 0xfffffffe;
const HEX_BYTES = /^(?:[0-9a-fA-F]{2})+$/;
const NO_SUCH_TX_HINT = 'Use gettransaction for wallet transactions.';
const DECODE_HINT = 'Make sure the tx has at least one input.';

// ---- decoding ----

/** Core's CScript::HasValidOps: every operation parses, is a known opcode, and pushes at most 520 bytes. */
export function hasValidOps(script: Uint8Array): boolean {
  const r = new ScriptReader(script);
  while (r.pos < script.length) {
    if (!r.next() || r.opcode > Op.OP_NOP10 || r.dataEnd - r.dataStart > MAX_SCRIPT_ELEMENT_SIZE) return false;
  }
  return true;
}

/** Core's CheckTxScriptsSanity: scripts a real transaction could carry (coinbase scriptSigs are free-form). */
function scriptsSane(tx: Transaction): boolean {
  const saneScript = (s: Uint8Array) => hasValidOps(s) && s.length <= MAX_SCRIPT_SIZE;
  return (tx.isCoinbase() || tx.inputs.every((i) => saneScript(i.scriptSig))) && tx.outputs.every((o) => saneScript(o.scriptPubKey));
}

function tryDecode(bytes: Uint8Array, allowWitness: boolean): Transaction | null {
  try {
    return Transaction.decode(bytes, { allowWitness });
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

/**
 * Core's DecodeHexTx. Some bytes decode both ways: a transaction with no inputs reads, under the
 * extended format, as a witness marker. Both readings are tried (as far as the caller allows),
 * and the one whose scripts look sane wins, the extended one when both or neither do.
 */
export function decodeHexTx(hex: string, tryNoWitness = true, tryWitness = true): Transaction | null {
  if (!HEX_BYTES.test(hex)) return null;
  const bytes = fromHex(hex);
  const extended = tryWitness ? tryDecode(bytes, true) : null;
  if (extended && scriptsSane(extended)) return extended;
  const legacy = tryNoWitness ? tryDecode(bytes, false) : null;
  if (legacy && scriptsSane(legacy)) return legacy;
  return extended ?? legacy;
}

// ---- decodescript ----

/** Core's IsOpSuccess: opcodes that make a tapscript succeed; a script using them is not a legacy/v0 script worth wrapping. */
function isOpSuccess(op: number): boolean {
  return (
    op === 80 ||
    op === 98 ||
    (op >= 126 && op <= 129) ||
    (op >= 131 && op <= 134) ||
    (op >= 137 && op <= 138) ||
    (op >= 141 && op <= 142) ||
    (op >= 149 && op <= 153) ||
    (op >= 187 && op <= 254)
  );
}

/** Core's decodescript: could this script sit behind P2SH (and maybe P2WSH)? */
function canWrap(script: Uint8Array, type: string): boolean {
  if (type === 'nulldata' || type === 'scripthash' || type === 'witness_unknown') return false;
  if (!hasValidOps(script) || isUnspendable(script)) return false;
  const r = new ScriptReader(script);
  while (r.next()) if (r.opcode === Op.OP_CHECKSIGADD || isOpSuccess(r.opcode)) return false;
  return true;
}

function decodeScriptJson(ctx: ChainContext, script: Uint8Array): JsonObject {
  const net = ctx.params.address;
  const { type, solutions } = solver(script);
  const result = scriptPubKeyToJson(script, ctx.params, false);
  if (!canWrap(script, type)) return result;
  const p2sh = scriptToAddress(p2shScript(hash160(script)), net);
  // Witness programs cannot be nested in P2WSH, and segwit checksigs need compressed keys.
  let segwitScript: Uint8Array | null = null;
  if (type === 'pubkey' || type === 'multisig') {
    const keys = solutions.filter((s) => s.length !== 1);
    if (keys.every((k) => k.length === 33)) segwitScript = type === 'pubkey' ? p2wpkhScript(hash160(keys[0])) : p2wshScript(sha256(script));
  } else if (type === 'pubkeyhash') {
    segwitScript = p2wpkhScript(solutions[0]);
  } else if (type === 'nonstandard') {
    segwitScript = p2wshScript(sha256(script));
  }
  return {
    ...result,
    p2sh,
    ...(segwitScript
      ? { segwit: { ...scriptPubKeyToJson(segwitScript, ctx.params), 'p2sh-segwit': scriptToAddress(p2shScript(hash160(segwitScript)), net) } }
      : {}),
  };
}

// ---- createrawtransaction ----

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

// ---- submission ----

/**
 * Core's ParseFeeRate: a maxfeerate of 1 coin/kvB or more is refused, because it almost always
 * means a caller thinking in units per vbyte (20 meant as 20 units/vB would be 20 coins/kvB).
 */
function parseMaxFeeRate(rate: bigint): FeeRate {
  if (rate >= COIN) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Fee rates larger than or equal to 1 coin/kvB are not accepted');
  return rate;
}

/**
 * The RPC error for a transaction the mempool refused, as sendrawtransaction and the wallet's
 * sends report it (Core's BroadcastTransaction, docs/mempool.md).
 */
export function broadcastError(failure: AcceptFailure): RpcError {
  switch (failure.kind) {
    case 'rejected':
      return new RpcError(RpcErrorCode.VERIFY_REJECTED, failure.debug ? `${failure.reason}, ${failure.debug}` : failure.reason);
    case 'missing-inputs':
      // Core 28 sends the validation state's text, bad-txns-inputs-missingorspent.
      return new RpcError(RpcErrorCode.VERIFY_ERROR, failure.reason);
    case 'already-in-chain':
      return new RpcError(RpcErrorCode.VERIFY_ALREADY_IN_CHAIN, 'Transaction outputs already in utxo set');
    case 'max-fee-exceeded':
      return new RpcError(RpcErrorCode.VERIFY_ERROR, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)');
  }
}

/** testmempoolaccept's reject-reason for a refused transaction. */
function testRejectReason(failure: AcceptFailure): string {
  return failure.kind === 'missing-inputs' ? 'missing-inputs' : failure.reason;
}

// ---- getrawtransaction ----

/**
 * Core's TxToJSON: the transaction (with fee and prevouts when `spent`, the coins its inputs
 * spent, is known), then where it was confirmed as seen from the active chain.
 */
function locatedTxJson(ctx: ChainContext, tx: Transaction, block: BlockIndexEntry | undefined, spent: readonly Coin[] | undefined): JsonObject {
  const json = txToJson(tx, ctx.params, { includeHex: true, spent, prevouts: true });
  return block ? { ...json, ...txPlacementToJson(block, ctx.chain) } : json;
}

const TX_RESULT_FIELDS = [
  '  "txid" : "hex",              (string) The transaction id',
  '  "hash" : "hex",              (string) The transaction hash (differs from txid for witness transactions)',
  '  "version" : n,               (numeric) The version',
  '  "size" : n,                  (numeric) The serialized transaction size',
  '  "vsize" : n,                 (numeric) The virtual transaction size (differs from size for witness transactions)',
  '  "weight" : n,                (numeric) The transaction\'s weight (between vsize*4-3 and vsize*4)',
  '  "locktime" : xxx,            (numeric) The lock time',
  '  "vin" : [                    (json array)',
  '    {                          (json object)',
  '      "coinbase" : "hex",      (string, optional) The coinbase value (only if coinbase transaction)',
  '      "txid" : "hex",          (string, optional) The transaction id (if not coinbase transaction)',
  '      "vout" : n,              (numeric, optional) The output number (if not coinbase transaction)',
  '      "scriptSig" : {          (json object, optional) The script (if not coinbase transaction)',
  '        "asm" : "str",         (string) Disassembly of the signature script',
  '        "hex" : "hex"          (string) The raw signature script bytes, hex-encoded',
  '      },',
  '      "txinwitness" : [ "hex", ... ], (json array, optional) hex-encoded witness data (if any)',
  '      "sequence" : n           (numeric) The script sequence number',
  '    },',
  '    ...',
  '  ],',
  '  "vout" : [                   (json array)',
  '    {                          (json object)',
  '      "value" : n,             (numeric) The value in coins',
  '      "n" : n,                 (numeric) index',
  '      "scriptPubKey" : {       (json object)',
  '        "asm" : "str",         (string) Disassembly of the output script',
  '        "hex" : "hex",         (string) The raw output script bytes, hex-encoded',
  '        "address" : "str",     (string, optional) The cs address (only if a well-defined address exists)',
  '        "type" : "str"         (string) The type (one of: nonstandard, pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_scripthash, witness_v0_keyhash, witness_unknown)',
  '      }',
  '    },',
  '    ...',
  '  ]',
];

const FEE_RATE_DESCRIPTION =
  'Reject transactions whose fee rate is higher than the specified value, expressed in coins/kvB.\n' +
  'Fee rates larger than 1 coin/kvB are rejected.\nSet to 0 to accept any fee rate.';

const SOME_TXID = 'a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0';
const SOME_BLOCK_HASH = '00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09';

export function registerRawTransactionMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, mempool, params, txIndex } = ctx;
  const genesisCoinbase = hashToHex(params.genesis.header.merkleRoot);

  registry.register({
    name: 'getrawtransaction',
    category: 'Rawtransactions',
    description:
      'By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled\n' +
      'and no blockhash argument is passed, it will return the transaction if it is in the mempool or any block.\n' +
      'If a blockhash argument is passed, it will return the transaction if\n' +
      'the specified block is available and the transaction is in that block.\n\n' +
      'Hint: Use gettransaction for wallet transactions.\n\n' +
      'If verbosity is 0 or omitted, returns the serialized transaction as a hex-encoded string.\n' +
      'If verbosity is 1, returns a JSON Object with information about the transaction.\n' +
      'If verbosity is 2, returns a JSON Object with information about the transaction, including fee and prevout information.',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id' },
      {
        name: 'verbosity',
        type: 'any',
        default: 0,
        description: '0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout (true and false mean 1 and 0)',
      },
      { name: 'blockhash', type: 'string', optional: true, description: 'The block in which to look for the transaction' },
    ],
    result: [
      'if verbosity is not set or set to 0',
      '"str"    (string) The serialized transaction as a hex-encoded string for \'txid\'',
      '',
      'if verbosity is set to 1',
      '{                             (json object)',
      '  "in_active_chain" : true|false, (boolean, optional) Whether specified block is in the active chain or not (only present with explicit "blockhash" argument)',
      ...TX_RESULT_FIELDS.map((l) => (l === '  ]' ? '  ],' : l)),
      '  "hex" : "hex",               (string) The serialized, hex-encoded data for \'txid\'',
      '  "blockhash" : "hex",         (string, optional) the block hash',
      '  "confirmations" : n,         (numeric, optional) The confirmations',
      '  "time" : xxx,                (numeric, optional) Same as "blocktime"',
      '  "blocktime" : xxx            (numeric, optional) The block time expressed in UNIX epoch time',
      '}',
      '',
      'for verbosity = 2',
      '{                             (json object)',
      '  ...,                         Same output as verbosity = 1',
      '  "fee" : n,                   (numeric, optional) transaction fee in coins, omitted if block undo data is not available',
      '  "vin" : [                    (json array)',
      '    {                          (json object) utxo being spent',
      '      ...,                     Same output as verbosity = 1',
      '      "prevout" : {            (json object, optional) The previous output, omitted if block undo data is not available',
      '        "generated" : true|false, (boolean) Coinbase or not',
      '        "height" : n,          (numeric) The height of the prevout',
      '        "value" : n,           (numeric) The value in coins',
      '        "scriptPubKey" : {     (json object) asm, hex, address (when there is one) and type of the spent output',
      '        }',
      '      }',
      '    },',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [
      { args: [SOME_TXID] },
      { args: [SOME_TXID, 1] },
      { args: [SOME_TXID, 2, SOME_BLOCK_HASH], description: 'A confirmed transaction, with fee and prevouts' },
    ],
    handler: async ([txidArg, verbosityArg, blockhashArg]) => {
      const txid = parseHashV(txidArg, 'parameter 1');
      if (txid === genesisCoinbase) {
        throw new RpcError(
          RpcErrorCode.INVALID_ADDRESS_OR_KEY,
          'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved',
        );
      }
      const verbosity = parseVerbosity(verbosityArg, 0, true);
      let given: BlockIndexEntry | undefined;
      if (blockhashArg !== undefined) {
        given = chain.entry(parseHashV(blockhashArg, 'parameter 3'));
        if (!given) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Block hash not found');
      }

      // Core's GetTransaction: the mempool (only without a block), the index (when its block
      // matches), then the given block itself.
      let tx: Transaction | undefined = given ? undefined : mempool.get(txid)?.tx;
      let blockHash: string | undefined;
      let blockTxs: readonly Transaction[] | undefined;
      if (!tx && txIndex) {
        const found = await txIndex.find(txid);
        if (found && (!given || found.blockHash === given.hashHex)) ({ tx, blockHash } = found);
      }
      if (!tx && given) {
        blockTxs = chain.readBlock(given)?.txs;
        tx = blockTxs?.find((t) => t.txidHex === txid);
        if (tx) blockHash = given.hashHex;
      }
      if (!tx) {
        let message: string;
        if (given) {
          if (!given.hasData()) throw new RpcError(RpcErrorCode.MISC_ERROR, 'Block not available');
          message = 'No such transaction found in the provided block';
        } else if (!txIndex) {
          message = 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries';
        } else if (!txIndex.synced()) {
          message = 'No such mempool transaction. Blockchain transactions are still in the process of being indexed';
        } else {
          message = 'No such mempool or blockchain transaction';
        }
        throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${message}. ${NO_SUCH_TX_HINT}`);
      }

      if (verbosity <= 0) return Buffer.from(tx.encode()).toString('hex');
      const block = blockHash !== undefined ? chain.entry(blockHash) : undefined;
      // Verbosity 2 adds the fee and prevouts from the block's undo data, which skips the
      // coinbase (it spends nothing): the transaction at position i spent undo[i - 1].
      let spent: readonly Coin[] | undefined;
      if (verbosity >= 2 && block && !tx.isCoinbase()) {
        const position = (blockTxs ?? chain.readBlock(block)?.txs)?.findIndex((t) => t.txidHex === txid) ?? -1;
        if (position > 0) spent = chain.readUndo(block)?.[position - 1];
      }
      const json = locatedTxJson(ctx, tx, block, spent);
      return given ? { in_active_chain: chain.contains(given), ...json } : json;
    },
  });

  registry.register({
    name: 'decoderawtransaction',
    category: 'Rawtransactions',
    description: 'Return a JSON object representing the serialized, hex-encoded transaction.',
    params: [
      { name: 'hexstring', type: 'string', description: 'The transaction hex string' },
      {
        name: 'iswitness',
        type: 'boolean',
        optional: true,
        description:
          'Whether the transaction hex is a serialized witness transaction.\n' +
          'If iswitness is not present, heuristic tests will be used in decoding.\n' +
          'If true, only witness deserialization will be tried.\n' +
          'If false, only non-witness deserialization will be tried.\n' +
          'This boolean should reflect whether the transaction has inputs\n' +
          '(e.g. fully valid, or on-chain transactions), if known by the caller.',
      },
    ],
    result: ['{                             (json object)', ...TX_RESULT_FIELDS, '}'].join('\n'),
    examples: [{ args: ['hexstring'] }],
    handler: async ([hexstring, iswitness]) => {
      const tx = decodeHexTx(hexstring, iswitness !== true, iswitness !== false);
      if (!tx) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, 'TX decode failed');
      return txToJson(tx, params);
    },
  });

  registry.register({
    name: 'decodescript',
    category: 'Rawtransactions',
    description: 'Decode a hex-encoded script.',
    params: [{ name: 'hexstring', type: 'string', description: 'the hex-encoded script' }],
    result: [
      '{                             (json object)',
      '  "asm" : "str",              (string) Disassembly of the script',
      '  "address" : "str",          (string, optional) The cs address (only if a well-defined address exists)',
      '  "type" : "str",             (string) The output type (e.g. nonstandard, pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_scripthash, witness_v0_keyhash, witness_unknown)',
      '  "p2sh" : "str",             (string, optional) address of P2SH script wrapping this redeem script (not returned for types that should not be wrapped)',
      '  "segwit" : {                (json object, optional) Result of a witness output script wrapping this redeem script (not returned for types that should not be wrapped)',
      '    "asm" : "str",            (string) Disassembly of the output script',
      '    "hex" : "hex",            (string) The raw output script bytes, hex-encoded',
      '    "address" : "str",        (string, optional) The cs address (only if a well-defined address exists)',
      '    "type" : "str",           (string) The type of the output script (e.g. witness_v0_keyhash or witness_v0_scripthash)',
      '    "p2sh-segwit" : "str"     (string) address of the P2SH script wrapping this witness redeem script',
      '  }',
      '}',
    ].join('\n'),
    examples: [{ args: ['76a914000000000000000000000000000000000000000088ac'] }],
    handler: async ([hexstring]) => {
      // Unlike other hex arguments the empty script is valid here.
      if (!isHexOrEmpty(hexstring)) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `argument must be hexadecimal string (not '${hexstring}')`);
      }
      return decodeScriptJson(ctx, fromHex(hexstring));
    },
  });

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

  registry.register({
    name: 'sendrawtransaction',
    category: 'Rawtransactions',
    description:
      'Submit a raw transaction (serialized, hex-encoded) to local node and network.\n\n' +
      'The transaction will be sent unconditionally to all peers, so using sendrawtransaction\n' +
      "for manual rebroadcast may degrade privacy by leaking the transaction's origin, as\n" +
      'nodes will normally not rebroadcast non-wallet transactions already in their mempool.\n\n' +
      'A specific exception, RPC_TRANSACTION_ALREADY_IN_UTXO_SET (-27), may throw if the transaction cannot be added to the mempool.\n\n' +
      'Related RPCs: createrawtransaction, signrawtransactionwithkey',
    params: [
      { name: 'hexstring', type: 'string', description: 'The hex string of the raw transaction' },
      { name: 'maxfeerate', type: 'amount', default: amountToJson(DEFAULT_MAX_RAW_TX_FEE_RATE), description: FEE_RATE_DESCRIPTION },
      {
        name: 'maxburnamount',
        type: 'amount',
        default: 0,
        description:
          "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in coins.\n" +
          'If burning funds through unspendable outputs is desired, increase this value.\n' +
          'This check is based on heuristics and does not guarantee spendability of outputs.',
      },
    ],
    result: '"hex"    (string) The transaction hash in hex',
    examples: [{ args: ['signedhex'] }],
    handler: async ([hexstring, maxfeerate, maxburnamount]) => {
      const tx = decodeHexTx(hexstring);
      if (!tx) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, `TX decode failed. ${DECODE_HINT}`);
      for (const out of tx.outputs) {
        if ((isUnspendable(out.scriptPubKey) || !hasValidOps(out.scriptPubKey)) && out.value > maxburnamount) {
          throw new RpcError(RpcErrorCode.VERIFY_ERROR, 'Unspendable output exceeds maximum configured by user (maxburnamount)');
        }
      }
      const maxFeeRate = parseMaxFeeRate(maxfeerate);
      // Core's BroadcastTransaction: an output of the transaction in the UTXO set means it is
      // confirmed already; one in the pool is answered with its txid, not offered again.
      if (tx.outputs.some((_, vout) => chain.getCoin({ txid: tx.txid, vout }))) {
        throw new RpcError(RpcErrorCode.VERIFY_ALREADY_IN_CHAIN, 'Transaction outputs already in utxo set');
      }
      if (mempool.has(tx.txidHex)) {
        mempool.addUnbroadcast(tx.txidHex);
        return tx.txidHex;
      }
      // Core's sendrawtransaction caps the fee on GetVirtualTransactionSize without sigops.
      const maxFee = maxFeeRate > 0n ? feeForSize(maxFeeRate, tx.vsize) : undefined;
      const result = mempool.accept(tx, { maxFee, unbroadcast: true });
      if (result.kind === 'accepted' || result.kind === 'valid') return tx.txidHex;
      throw broadcastError(result);
    },
  });

  registry.register({
    name: 'testmempoolaccept',
    category: 'Rawtransactions',
    description:
      'Returns result of mempool acceptance tests indicating if raw transaction(s) (serialized, hex-encoded) would be accepted by mempool.\n\n' +
      'Each transaction is tested on its own against the current mempool (csd has no package\n' +
      'acceptance yet): a child of another transaction in the list fails as missing-inputs.\n\n' +
      `The maximum number of transactions allowed is ${MAX_PACKAGE_COUNT}.\n\n` +
      'This checks if transactions violate the consensus or policy rules.\n\n' +
      'See sendrawtransaction call.',
    params: [
      { name: 'rawtxs', type: 'array', description: 'An array of hex strings of raw transactions.' },
      { name: 'maxfeerate', type: 'amount', default: amountToJson(DEFAULT_MAX_RAW_TX_FEE_RATE), description: FEE_RATE_DESCRIPTION },
    ],
    result: [
      '[                               (json array) The result of the mempool acceptance test for each raw transaction in the input array.',
      '                                Returns results for each transaction in the same order they were passed in.',
      '  {                             (json object)',
      '    "txid" : "hex",             (string) The transaction hash in hex',
      '    "wtxid" : "hex",            (string) The transaction witness hash in hex',
      '    "allowed" : true|false,     (boolean) Whether this tx would be accepted to the mempool and pass client-specified maxfeerate',
      '    "vsize" : n,                (numeric, optional) Virtual transaction size as defined in BIP 141, adjusted for sigops (only present when \'allowed\' is true)',
      '    "fees" : {                  (json object, optional) Transaction fees (only present if \'allowed\' is true)',
      '      "base" : n,               (numeric) transaction fee in coins',
      '      "effective-feerate" : n,  (numeric) the effective feerate in coins per KvB (the modified fee, with prioritisetransaction deltas, over vsize)',
      '      "effective-includes" : [ "hex", ... ] (json array) transactions whose fees and vsizes are included in effective-feerate (wtxids)',
      '    },',
      '    "reject-reason" : "str"     (string, optional) Rejection string (only present when \'allowed\' is false)',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [['signedhex']] }],
    handler: async ([rawtxs, maxfeerate]) => {
      if (rawtxs.length < 1 || rawtxs.length > MAX_PACKAGE_COUNT) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Array must contain between 1 and ${MAX_PACKAGE_COUNT} transactions.`);
      }
      const maxFeeRate = parseMaxFeeRate(maxfeerate);
      const txs = rawtxs.map((raw) => {
        const hex = jsonString(raw);
        const tx = decodeHexTx(hex);
        if (!tx) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, `TX decode failed: ${hex} ${DECODE_HINT}`);
        return tx;
      });
      return txs.map((tx): JsonObject => {
        const ids = { txid: tx.txidHex, wtxid: tx.wtxidHex };
        const r = mempool.accept(tx, { testOnly: true, maxFeeRate });
        if (r.kind === 'accepted') throw new Error('a test-only acceptance changed the mempool');
        if (r.kind === 'valid') {
          const { vsize, fee, modifiedFee } = r;
          return {
            ...ids,
            allowed: true,
            vsize,
            fees: {
              base: amountToJson(fee),
              'effective-feerate': feeRateToCoins(feeRateOf(modifiedFee, vsize)),
              'effective-includes': [tx.wtxidHex],
            },
          };
        }
        return { ...ids, allowed: false, 'reject-reason': testRejectReason(r) };
      });
    },
  });
}
