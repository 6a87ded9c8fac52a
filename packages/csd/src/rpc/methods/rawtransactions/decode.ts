/** Decoding transactions and scripts: Core's DecodeHexTx, which the wallet shares, and decoderawtransaction and decodescript. */
import {
  DecodeError,
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_SCRIPT_SIZE,
  Op,
  ScriptReader,
  Transaction,
  fromHex,
  hash160,
  isUnspendable,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  scriptToAddress,
  sha256,
  solver,
} from '@cs/consensus';
import { scriptPubKeyToJson, txToJson } from '../../../format/json.ts';
import type { JsonObject } from '../../../format/json-value.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { isHexOrEmpty } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';

/** Hex of one or more whole bytes, as Core's IsHex accepts it. */
export const HEX_BYTES = /^(?:[0-9a-fA-F]{2})+$/;

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

/** The fields of a decoded transaction, as decoderawtransaction and getrawtransaction describe them. */
export const TX_RESULT_FIELDS = [
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

export function registerDecodeMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { params } = ctx;

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
}
