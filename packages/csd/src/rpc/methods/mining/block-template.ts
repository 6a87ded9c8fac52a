/**
 * Block templates for pools (BIP 22/23 getblocktemplate with the Equihash header fields ZIP 301
 * pools need, long polling and proposals) and block submission. docs/mining.md explains the
 * template to pool operators.
 */
import {
  Block,
  MAX_BLOCK_SERIALIZED_SIZE,
  MAX_BLOCK_SIGOPS_COST,
  MAX_BLOCK_WEIGHT,
  ValidationError,
  fromHex,
  solutionSize,
  toHex,
  type ChainParams,
} from '@cs/consensus';
import { BlockStatus } from '../../../chain/block-index.ts';
import type { ProcessResult } from '../../../chain/chainstate.ts';
import { jsonTypeName, type JsonObject, type JsonValue } from '../../../format/json-value.ts';
import { addMissingWitnessNonce } from '../../../mining/assemble.ts';
import { waitForTemplateChange, type LongpollTiming, type LongpollWatch } from '../../../mining/longpoll.ts';
import { blockTime, type BlockTemplate, type TemplateSource } from '../../../mining/template.ts';
import { testBlockValidity } from '../../../mining/validity.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { parseHashV } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { bitsHex, targetHex } from './target-hex.ts';

/** Hex of the 32-byte header field that must be zero (docs/protocol.md §2). */
const RESERVED_FIELD_HEX = '00'.repeat(32);
/**
 * Core's noncerange, the 32-bit nonce of a Bitcoin header, kept for clients that read it. Our
 * nonce is 32 bytes, which ZIP 301 pools split as NONCE_1 ‖ NONCE_2 (docs/mining.md).
 */
const NONCE_RANGE = '00000000ffffffff';

export function registerBlockTemplateMethods(
  registry: RpcRegistry,
  ctx: ChainContext,
  templates: TemplateSource,
  longpollTiming: LongpollTiming,
): void {
  const { chain, params } = ctx;
  // Serializing every transaction is most of a template's JSON; pools poll the same template.
  const transactionsJson = new WeakMap<BlockTemplate, JsonValue[]>();

  const templateTransactions = (template: BlockTemplate): JsonValue[] => {
    let json = transactionsJson.get(template);
    if (json === undefined) {
      json = template.selection.txs.map((s) => ({
        data: toHex(s.entry.tx.encode()),
        txid: s.entry.txid,
        hash: s.entry.wtxid,
        depends: [...s.depends],
        fee: Number(s.fee),
        sigops: s.sigOpCost,
        weight: s.weight,
      }));
      transactionsJson.set(template, json);
    }
    return json;
  };

  /** BIP 23 proposal: would this (unsolved) block be valid on the tip? null, or why not. */
  const checkProposal = (data: JsonValue | undefined): JsonValue => {
    if (typeof data !== 'string') throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Missing data String key for proposal');
    const block = decodeBlockHex(data).block;
    const known = chain.entry(block.header.hashHex);
    if (known) {
      if (known.isFailed()) return 'duplicate-invalid';
      if (known.status & BlockStatus.VALID_SCRIPTS) return 'duplicate';
      return 'duplicate-inconclusive';
    }
    try {
      testBlockValidity(chain, block, { checkMerkleRoot: true });
      return null;
    } catch (e) {
      if (e instanceof ValidationError) return e.reason;
      throw e;
    }
  };

  /** Core's reading of a longpollid: `<tip hash><transactions counter>`; anything but a string watches the latest template. */
  const longpollWatch = (longpollid: JsonValue): LongpollWatch => {
    if (typeof longpollid !== 'string') {
      return { tipHash: chain.tip.hashHex, transactionsUpdated: templates.lastTransactionsUpdated };
    }
    const counter = /^[+-]?\d+/.exec(longpollid.slice(64));
    return { tipHash: parseHashV(longpollid.slice(0, 64), 'longpollid'), transactionsUpdated: counter ? Number(counter[0]) : 0 };
  };

  registry.register({
    name: 'getblocktemplate',
    category: 'Mining',
    description: [
      "If the request parameters include a 'mode' key, that is used to explicitly select between the default 'template' request or a 'proposal'.",
      'It returns data needed to construct a block to work on.',
      'For full specification, see BIPs 22, 23, 9, and 145:',
      '    https://github.com/bitcoin/bips/blob/master/bip-0022.mediawiki',
      '    https://github.com/bitcoin/bips/blob/master/bip-0023.mediawiki',
      '    https://github.com/bitcoin/bips/blob/master/bip-0009.mediawiki#getblocktemplate_changes',
      '    https://github.com/bitcoin/bips/blob/master/bip-0145.mediawiki',
      "The header is Zcash's version 4 layout with an Equihash solution: the template adds the",
      '32-byte reserved header field and the Equihash parameters, and the nonce is 32 bytes',
      '(ZIP 301 stratum splits it into NONCE_1 and NONCE_2). See docs/mining.md.',
    ].join('\n'),
    params: [
      {
        name: 'template_request',
        type: 'object',
        description: [
          'Format of the template',
          '{',
          '  "mode": "str",              (string, optional) This must be set to "template", "proposal" (see BIP 23), or omitted',
          '  "capabilities": [           (json array, optional) A list of strings',
          "    \"str\",                    (string) client side supported feature, 'longpoll', 'coinbasevalue', 'proposal', 'serverlist', 'workid'",
          '    ...',
          '  ],',
          '  "rules": [                  (json array, required) A list of strings',
          '    "segwit",                 (string, required) (literal) indicates client side segwit support',
          '    "str",                    (string) other client side supported softfork deployment',
          '    ...',
          '  ],',
          '  "longpollid": "str",        (string, optional) delay processing request until the result would vary significantly from the "longpollid" of a prior template',
          '  "data": "hex",              (string, optional) proposed block data to check, encoded in hexadecimal; valid only for mode="proposal"',
          '}',
        ].join('\n'),
      },
    ],
    result: [
      "(If the proposal was accepted with mode=='proposal')",
      'null    (json null)',
      '',
      "(If the proposal was not accepted with mode=='proposal')",
      '"str"    (string) According to BIP22',
      '',
      '(Otherwise)',
      '{                                        (json object)',
      '  "capabilities" : [                     (json array)',
      '    "str",                               (string) A supported feature, for example \'proposal\'',
      '    ...',
      '  ],',
      '  "version" : n,                         (numeric) The preferred block version',
      '  "rules" : [                            (json array) specific block rules that are to be enforced',
      '    "str",                               (string) name of a rule the client must understand to some extent; see BIP 9 for format',
      '    ...',
      '  ],',
      '  "vbavailable" : {                      (json object) set of pending, supported versionbit (BIP 9) softfork deployments',
      '    "rulename" : n,                      (numeric) identifies the bit number as indicating acceptance and readiness for the named softfork rule',
      '    ...',
      '  },',
      '  "vbrequired" : n,                      (numeric) bit mask of versionbits the server requires set in submissions',
      '  "previousblockhash" : "str",           (string) The hash of current highest block',
      '  "transactions" : [                     (json array) contents of non-coinbase transactions that should be included in the next block',
      '    {                                    (json object)',
      '      "data" : "hex",                    (string) transaction data encoded in hexadecimal (byte-for-byte)',
      '      "txid" : "hex",                    (string) transaction hash excluding witness data, shown in byte-reversed hex',
      '      "hash" : "hex",                    (string) transaction hash including witness data, shown in byte-reversed hex',
      '      "depends" : [                      (json array) array of numbers',
      "        n,                               (numeric) transactions before this one (by 1-based index in 'transactions' list) that must be present in the final block if this one is",
      '        ...',
      '      ],',
      '      "fee" : n,                         (numeric) difference in value between transaction inputs and outputs (in base units); for coinbase transactions, this is a negative Number of the total collected block fees (ie, not including the block subsidy); if key is not present, fee is unknown and clients MUST NOT assume there isn\'t one',
      '      "sigops" : n,                      (numeric) total SigOps cost, as counted for purposes of block limits; if key is not present, sigop cost is unknown and clients MUST NOT assume it is zero',
      '      "weight" : n                       (numeric) total transaction weight, as counted for purposes of block limits',
      '    },',
      '    ...',
      '  ],',
      '  "coinbaseaux" : {                      (json object) data that should be included in the coinbase\'s scriptSig content',
      '    "key" : "hex",                       (string) values must be in the coinbase (keys may be ignored)',
      '    ...',
      '  },',
      '  "coinbasevalue" : n,                   (numeric) maximum allowable input to coinbase transaction, including the generation award and transaction fees (in base units)',
      '  "longpollid" : "str",                  (string) an id to include with a request to longpoll on an update to this template',
      '  "target" : "str",                      (string) The hash target',
      '  "mintime" : xxx,                       (numeric) The minimum timestamp appropriate for the next block time, expressed in UNIX epoch time',
      '  "mutable" : [                          (json array) list of ways the block template may be changed',
      "    \"value\",                             (string) A way the block template may be changed, e.g. 'time', 'transactions', 'prevblock'",
      '    ...',
      '  ],',
      '  "noncerange" : "hex",                  (string) A range of valid nonces (Bitcoin\'s 32-bit range, for compatibility: the Equihash nonce is 32 bytes)',
      '  "sigoplimit" : n,                      (numeric) limit of sigops in blocks',
      '  "sizelimit" : n,                       (numeric) limit of block size',
      '  "weightlimit" : n,                     (numeric) limit of block weight',
      '  "curtime" : xxx,                       (numeric) current timestamp in UNIX epoch time',
      '  "bits" : "str",                        (string) compressed target of next block',
      '  "height" : n,                          (numeric) The height of the next block',
      '  "default_witness_commitment" : "hex",  (string) a valid witness commitment for the unmodified block template',
      '  "reserved" : "hex",                    (string) the 32-byte reserved header field (after the merkle root), all zero by consensus',
      '  "finalsaplingroothash" : "hex",        (string) the same field under the name Zcash pools read',
      '  "equihash" : {                         (json object) the proof of work, for verifying shares',
      '    "n" : n,                             (numeric) Equihash N',
      '    "k" : n,                             (numeric) Equihash K',
      '    "personalization" : "str",           (string) the 8-character BLAKE2b personalization prefix',
      '    "twist" : true|false,                (boolean) whether Flux\'s ZelHash twist applies',
      '    "solutionsize" : n                   (numeric) bytes of a solution',
      '  }',
      '}',
    ].join('\n'),
    examples: [{ args: [{ rules: ['segwit'] }] }],
    handler: async ([request]) => {
      let mode = 'template';
      const modeValue = request.mode;
      if (typeof modeValue === 'string') mode = modeValue;
      else if (modeValue !== undefined && modeValue !== null) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid mode');
      const longpollid = request.longpollid;

      if (mode === 'proposal') return checkProposal(request.data);

      const clientRules = new Set<string>();
      const rules = request.rules;
      if (Array.isArray(rules)) {
        for (const rule of rules as readonly JsonValue[]) {
          // Core reads each with get_str(), whose failure is a plain runtime error.
          if (typeof rule !== 'string')
            throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(rule)} is not of expected type string`);
          clientRules.add(rule);
        }
      }
      if (mode !== 'template') throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid mode');
      // Core refuses templates without peers (-9) or during initial block download (-10). This
      // node has no P2P network yet: its tip is all it knows, so it always answers.

      if (longpollid !== undefined && longpollid !== null) {
        await waitForTemplateChange(chain, longpollWatch(longpollid), () => templates.transactionsUpdated, longpollTiming, registry.stopping);
        if (registry.stopping.aborted) throw new RpcError(RpcErrorCode.CLIENT_NOT_CONNECTED, 'Shutting down');
      }

      if (!clientRules.has('segwit')) {
        throw new RpcError(
          RpcErrorCode.INVALID_PARAMETER,
          'getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})',
        );
      }

      const { template, transactionsUpdated } = templates.current();
      return {
        capabilities: ['proposal'],
        version: template.version,
        // Both active from genesis; "!" (BIP 9): segwit changes the block format, so a client
        // must understand it, while csv only restricts transactions.
        rules: ['csv', '!segwit'],
        vbavailable: {},
        vbrequired: 0,
        previousblockhash: template.prev.hashHex,
        transactions: templateTransactions(template),
        coinbaseaux: {},
        coinbasevalue: Number(template.coinbaseValue),
        longpollid: template.prev.hashHex + String(transactionsUpdated),
        target: targetHex(template.bits),
        mintime: template.minTime,
        mutable: ['time', 'transactions', 'prevblock'],
        noncerange: NONCE_RANGE,
        sigoplimit: MAX_BLOCK_SIGOPS_COST,
        sizelimit: MAX_BLOCK_SERIALIZED_SIZE,
        weightlimit: MAX_BLOCK_WEIGHT,
        curtime: blockTime(template.prev, ctx.clock.now()),
        bits: bitsHex(template.bits),
        height: template.height,
        default_witness_commitment: toHex(template.witnessCommitment),
        reserved: RESERVED_FIELD_HEX,
        finalsaplingroothash: RESERVED_FIELD_HEX,
        equihash: equihashJson(params),
      };
    },
  });

  registry.register({
    name: 'submitblock',
    category: 'Mining',
    description: 'Attempts to submit new block to network.\nSee https://en.bitcoin.it/wiki/BIP_0022 for full specification.',
    params: [
      { name: 'hexdata', type: 'string', description: 'the hex-encoded block data to submit' },
      { name: 'dummy', type: 'string', optional: true, description: 'dummy value, for compatibility with BIP22. This value is ignored.' },
    ],
    result: ['(If the block was accepted)', 'null    (json null)', '', '(Otherwise)', '"str"    (string) According to BIP22'].join('\n'),
    examples: [{ args: ['mydata'] }],
    handler: async ([hexdata]) => {
      const { block, bytes } = decodeBlockHex(hexdata);
      const submitted = addMissingWitnessNonce(block);
      // The raw bytes are stored as they came, unless the witness nonce had to be added.
      const result = await chain.processBlock(submitted, submitted === block ? bytes : undefined);
      return bip22Result(result);
    },
  });
}

/** Core's DecodeHexBlk, stricter in one way: bytes after the block are refused rather than ignored. */
function decodeBlockHex(hex: string): { readonly block: Block; readonly bytes: Uint8Array } {
  try {
    const bytes = fromHex(hex);
    return { block: Block.decode(bytes), bytes };
  } catch {
    throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, 'Block decode failed');
  }
}

/** submitblock's answer (BIP 22): null when the block joined the active chain, else a word saying why not. */
function bip22Result(result: ProcessResult): JsonValue {
  switch (result.status) {
    case 'accepted':
      return null;
    case 'inconclusive':
    case 'duplicate':
    case 'duplicate-invalid':
      return result.status;
    case 'rejected':
      return result.reason;
  }
}

/** What a pool needs to verify a share's solution (docs/protocol.md §5). */
function equihashJson(params: ChainParams): JsonObject {
  const { n, k, personalization, twist } = params.equihash;
  return { n, k, personalization, twist, solutionsize: solutionSize(params.equihash) };
}
