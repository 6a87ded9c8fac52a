/**
 * The Mining and Generating categories (Core's rpc/mining.cpp) and estimatesmartfee (Core's
 * rpc/fees.cpp, category Util): block templates for pools (BIP 22/23 getblocktemplate with the
 * Equihash header fields ZIP 301 pools need), block submission, mining statistics,
 * prioritisation, regtest mining and fee estimates. Parameter names and order, results, error
 * codes and messages are Core's; docs/mining.md explains the template to pool operators.
 */
import {
  AddressError,
  Block,
  MAX_BLOCK_SERIALIZED_SIZE,
  MAX_BLOCK_SIGOPS_COST,
  MAX_BLOCK_WEIGHT,
  Transaction,
  ValidationError,
  addressToScript,
  compactToTarget,
  fromHex,
  getDifficulty,
  solutionSize,
  toHex,
  type ChainParams,
} from '@cs/consensus';
import { BlockStatus } from '../../chain/block-index.ts';
import type { ProcessResult } from '../../chain/chainstate.ts';
import { MAX_CONF_TARGET, parseEstimateMode } from '../../fees/estimator.ts';
import { addMissingWitnessNonce, mineBlock } from '../../mining/assemble.ts';
import { BlockNotAcceptedError, DEFAULT_MAX_TRIES, createBlockWithTransactions, generateBlocks, submitMinedBlock } from '../../mining/generate.ts';
import { networkHashPerSecond } from '../../mining/hashrate.ts';
import { DEFAULT_LONGPOLL_TIMING, waitForTemplateChange, type LongpollTiming, type LongpollWatch } from '../../mining/longpoll.ts';
import { TemplateSource, blockTime, type BlockTemplate } from '../../mining/template.ts';
import { testBlockValidity } from '../../mining/validity.ts';
import type { ChainContext } from '../context.ts';
import { INT32_MAX, INT32_MIN, jsonInteger, parseHashV } from '../params.ts';
import { feeRateToCoins } from '../../policy/feerate.ts';
import { RpcError, RpcErrorCode } from '../errors.ts';
import { jsonTypeName, type JsonObject, type JsonValue } from '../../format/json-value.ts';
import type { RpcRegistry } from '../registry.ts';

export interface MiningRpcOptions {
  /** Long polling intervals (tests shorten them). */
  readonly longpoll?: LongpollTiming;
}

/** Core's getnetworkhashps default: the last 120 blocks. */
const DEFAULT_HASHPS_BLOCKS = 120;
/** Hex of the 32-byte header field that must be zero (docs/protocol.md §2). */
const RESERVED_FIELD_HEX = '00'.repeat(32);
/**
 * Core's noncerange, the 32-bit nonce of a Bitcoin header, kept for clients that read it. Our
 * nonce is 32 bytes, which ZIP 301 pools split as NONCE_1 ‖ NONCE_2 (docs/mining.md).
 */
const NONCE_RANGE = '00000000ffffffff';

export function registerMiningMethods(registry: RpcRegistry, ctx: ChainContext, options: MiningRpcOptions = {}): void {
  const { chain, mempool, params } = ctx;
  const longpollTiming = options.longpoll ?? DEFAULT_LONGPOLL_TIMING;
  const templates = new TemplateSource(
    chain,
    mempool,
    { maxWeight: ctx.config.options.blockmaxweight, minFeeRate: ctx.config.options.blockmintxfee },
    ctx.clock.now,
  );
  // Serializing every transaction is most of a template's JSON; pools poll the same template.
  const transactionsJson = new WeakMap<BlockTemplate, JsonValue[]>();

  const regtestOnly = (): void => {
    // As Zcash: on main and test, ZelHash cannot be CPU-mined in useful time (docs/mining.md).
    if (!params.mineBlocksOnDemand) throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, 'This method can only be used on regtest');
  };

  registry.register({
    name: 'getnetworkhashps',
    category: 'Mining',
    description: [
      'Returns the estimated network hashes per second based on the last n blocks.',
      'Pass in [blocks] to override # of blocks, -1 specifies since last difficulty change.',
      'Pass in [height] to estimate the network speed at the time when a certain block was found.',
      'For Equihash, one hash is one solution tested against the target: the unit is solutions',
      'per second (Sol/s). The difficulty changes every block (LWMA-3), so -1 means the LWMA window',
      'of 60 blocks that the current difficulty was computed from.',
    ].join('\n'),
    params: [
      {
        name: 'nblocks',
        type: 'integer',
        default: DEFAULT_HASHPS_BLOCKS,
        description: 'The number of previous blocks to calculate estimate from, or -1 for blocks since last difficulty change.',
      },
      { name: 'height', type: 'integer', default: -1, description: 'To estimate at the time of the given height.' },
    ],
    result: 'n    (numeric) Hashes (Equihash solutions) per second estimated',
    examples: [{ args: [] }],
    handler: async ([nblocksArg, heightArg]) => {
      // Core reads both as int.
      const nblocks = jsonInteger(nblocksArg, INT32_MIN, INT32_MAX);
      const height = jsonInteger(heightArg, INT32_MIN, INT32_MAX);
      if (nblocks < -1 || nblocks === 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid nblocks. Must be a positive number or -1.');
      if (height < -1 || height > chain.height) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Block does not exist at specified height');
      const end = height === -1 ? chain.tip : chain.atHeight(height)!;
      return networkHashPerSecond(end, nblocks === -1 ? params.lwmaWindow : nblocks);
    },
  });

  registry.register({
    name: 'getmininginfo',
    category: 'Mining',
    description: 'Returns a json object containing mining-related information.',
    params: [],
    result: [
      '{                              (json object)',
      '  "blocks" : n,                (numeric) The current block',
      '  "currentblockweight" : n,    (numeric, optional) The block weight (including reserved weight for block header, txs count and coinbase tx) of the last assembled block (only present if a block was ever assembled)',
      '  "currentblocktx" : n,        (numeric, optional) The number of block transactions (excluding coinbase) of the last assembled block (only present if a block was ever assembled)',
      '  "bits" : "hex",              (string) The current nBits, compact representation of the block difficulty target',
      '  "difficulty" : n,            (numeric) The current difficulty (1 = the network\'s powLimit)',
      '  "target" : "hex",            (string) The current target',
      '  "networkhashps" : n,         (numeric) The network hashes (Equihash solutions) per second',
      '  "pooledtx" : n,              (numeric) The size of the mempool',
      '  "chain" : "str",             (string) current network name (main, test, regtest)',
      '  "next" : {                   (json object) The next block',
      '    "height" : n,              (numeric) The next height',
      '    "bits" : "hex",            (string) The next target nBits',
      '    "difficulty" : n,          (numeric) The next difficulty',
      '    "target" : "hex"           (string) The next target',
      '  },',
      '  "warnings" : [               (json array) any network and blockchain warnings',
      '    "str",                     (string) warning',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const tip = chain.tip;
      const nextBits = chain.nextWorkRequired(tip);
      const last = templates.lastAssembled;
      return {
        blocks: chain.height,
        ...(last ? { currentblockweight: last.weight, currentblocktx: last.txCount } : {}),
        bits: bitsHex(tip.header.bits),
        difficulty: getDifficulty(tip.header.bits, params.powLimitBits),
        target: targetHex(tip.header.bits),
        networkhashps: networkHashPerSecond(tip, DEFAULT_HASHPS_BLOCKS),
        pooledtx: mempool.size,
        chain: params.name,
        next: {
          height: tip.height + 1,
          bits: bitsHex(nextBits),
          difficulty: getDifficulty(nextBits, params.powLimitBits),
          target: targetHex(nextBits),
        },
        // Core's warnings come from version-bit signalling and peers' clocks; this node has neither.
        warnings: [],
      };
    },
  });

  registry.register({
    name: 'prioritisetransaction',
    category: 'Mining',
    description: 'Accepts the transaction into mined blocks at a higher (or lower) priority',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id.' },
      {
        // Core declares it an omitted optional number before a required argument; our parameter
        // specs keep required arguments first, so it is a required "any" checked by the handler
        // (null passes, as in Core, which is what named calls without it send), shown as optional.
        name: 'dummy',
        type: 'any',
        placeholder: true,
        description:
          'API-Compatibility for previous API. Must be zero or null.\nDEPRECATED. For forward compatibility use named arguments and omit this parameter.',
      },
      {
        name: 'fee_delta',
        type: 'integer',
        description: [
          'The fee value (in base units) to add (or subtract, if negative).',
          'Note, that this value is not a fee rate. It is a value to modify absolute fee of the TX.',
          'The fee is not actually paid, only the algorithm for selecting transactions into a block',
          'considers the transaction as it would have paid a higher (or lower) fee.',
        ].join('\n'),
      },
    ],
    result: 'true|false    (boolean) Returns true',
    examples: [{ args: ['txid', 0.0, 10000] }],
    handler: async ([txidArg, dummy, feeDelta]) => {
      const txid = parseHashV(txidArg, 'txid');
      if (dummy !== null && dummy !== undefined) {
        if (typeof dummy !== 'number') {
          throw new RpcError(
            RpcErrorCode.TYPE_ERROR,
            `Wrong type passed:\n${JSON.stringify({ 'Position 2 (dummy)': `JSON value of type ${jsonTypeName(dummy)} is not of expected type number` }, null, 4)}`,
          );
        }
        if (dummy !== 0)
          throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Priority is no longer supported, dummy argument to prioritisetransaction must be 0.');
      }
      templates.prioritise(txid, BigInt(feeDelta));
      return true;
    },
  });

  registry.register({
    name: 'getprioritisedtransactions',
    category: 'Mining',
    description: 'Returns a map of all user-created (see prioritisetransaction) fee deltas by txid, and whether the tx is present in mempool.',
    params: [],
    result: [
      '{                                 (json object) prioritisation keyed by txid',
      '  "<transactionid>" : {           (json object)',
      '    "fee_delta" : n,              (numeric) transaction fee delta in base units',
      '    "in_mempool" : true|false,    (boolean) whether this transaction is currently in mempool',
      '    "modified_fee" : n            (numeric, optional) modified fee in base units. Only returned if in_mempool=true',
      '  },',
      '  ...',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const out: Record<string, JsonObject> = {};
      for (const p of mempool.prioritised()) {
        out[p.txid] = {
          fee_delta: Number(p.feeDelta),
          in_mempool: p.inMempool,
          ...(p.modifiedFee !== undefined ? { modified_fee: Number(p.modifiedFee) } : {}),
        };
      }
      return out;
    },
  });

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

  registry.register({
    name: 'generatetoaddress',
    category: 'Generating',
    description:
      'Mine to a specified address and return the block hashes.\nRegtest only: ZelHash (main, test) cannot be mined on a CPU in useful time.',
    params: [
      { name: 'nblocks', type: 'integer', description: 'How many blocks are generated.' },
      { name: 'address', type: 'string', description: 'The address to send the newly generated coins to.' },
      {
        name: 'maxtries',
        type: 'integer',
        default: DEFAULT_MAX_TRIES,
        description: 'How many iterations (Equihash nonces, shared by all the blocks) to try.',
      },
    ],
    result: ['[           (json array) hashes of blocks generated', '  "hex",    (string) blockhash', '  ...', ']'].join('\n'),
    examples: [{ args: [11, 'myaddress'], description: 'Generate 11 blocks to myaddress' }],
    handler: async ([nblocks, address, maxtries]) => {
      regtestOnly();
      const payTo = addressScript(address, params, 'Error: Invalid address');
      try {
        return await generateBlocks(chain, templates, ctx.clock.now, payTo, nblocks, maxtries, registry.stopping);
      } catch (e) {
        throw notAccepted(e);
      }
    },
  });

  registry.register({
    name: 'generateblock',
    category: 'Generating',
    description: [
      'Mine a set of ordered transactions to a specified address and return the block hash.',
      "The coinbase pays the block subsidy and the transactions' fees.",
      'Regtest only: ZelHash (main, test) cannot be mined on a CPU in useful time.',
    ].join('\n'),
    params: [
      { name: 'output', type: 'string', description: 'The address to send the newly generated coins to.' },
      {
        name: 'transactions',
        type: 'array',
        description: [
          'An array of hex strings which are either txids or raw transactions.',
          'Txids must reference transactions currently in the mempool.',
          'All transactions must be valid and in valid order, otherwise the block will be rejected.',
          '[',
          '  "rawtx/txid",    (string)',
          '  ...',
          ']',
        ].join('\n'),
      },
      {
        name: 'submit',
        type: 'boolean',
        default: true,
        description: 'Whether to submit the block before the RPC call returns or to return it as hex.',
      },
    ],
    result: [
      '{                   (json object)',
      '  "hash" : "hex",   (string) hash of generated block',
      '  "hex" : "hex"     (string, optional) hex of generated block, only present when submit=false',
      '}',
    ].join('\n'),
    examples: [{ args: ['myaddress', ['rawtx', 'mempool_txid']], description: 'Generate a block to myaddress, with txs rawtx and mempool_txid' }],
    handler: async ([output, transactions, submit]) => {
      regtestOnly();
      const payTo = addressScript(output, params, 'Error: Invalid address or descriptor');
      const txs = transactions.map((item) => {
        if (typeof item !== 'string')
          throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(item)} is not of expected type string`);
        if (/^[0-9a-fA-F]{64}$/.test(item)) {
          const entry = mempool.get(item.toLowerCase());
          if (!entry) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `Transaction ${item} not in mempool.`);
          return entry.tx;
        }
        try {
          return Transaction.decode(fromHex(item));
        } catch {
          throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, `Transaction decode failed for ${item}. Make sure the tx has at least one input.`);
        }
      });

      let block: Block;
      try {
        block = createBlockWithTransactions(chain, payTo, txs, ctx.clock.now());
      } catch (e) {
        if (e instanceof ValidationError) {
          throw new RpcError(RpcErrorCode.VERIFY_ERROR, `TestBlockValidity failed: ${e.reason}${e.debug ? `, ${e.debug}` : ''}`);
        }
        throw e;
      }
      const solved = mineBlock(block, params, DEFAULT_MAX_TRIES).block;
      if (!solved) throw new RpcError(RpcErrorCode.MISC_ERROR, 'Failed to make block.');
      if (!submit) return { hash: solved.header.hashHex, hex: toHex(solved.encode()) };
      try {
        await submitMinedBlock(chain, solved);
      } catch (e) {
        throw notAccepted(e);
      }
      return { hash: solved.header.hashHex };
    },
  });

  registry.register({
    name: 'estimatesmartfee',
    category: 'Util',
    description: [
      'Estimates the approximate fee per kilobyte needed for a transaction to begin',
      'confirmation within conf_target blocks if possible and return the number of blocks',
      'for which the estimate is valid. Uses virtual transaction size as defined',
      'in BIP 141 (witness data is discounted).',
    ].join('\n'),
    params: [
      { name: 'conf_target', type: 'integer', description: `Confirmation target in blocks (1 - ${MAX_CONF_TARGET})` },
      {
        name: 'estimate_mode',
        type: 'string',
        default: 'economical',
        description: [
          'The fee estimate mode.',
          'unset, economical, conservative',
          'unset means no mode set (default mode will be used).',
          'economical estimates use a shorter time horizon, making them more',
          'responsive to short-term drops in the prevailing fee market. This mode',
          'potentially returns a lower fee rate estimate.',
          'conservative estimates use a longer time horizon, making them',
          'less responsive to short-term drops in the prevailing fee market. This mode',
          'potentially returns a higher fee rate estimate.',
        ].join('\n'),
      },
    ],
    result: [
      '{                   (json object)',
      '  "feerate" : n,    (numeric, optional) estimate fee rate in coins/kvB (only present if no errors were encountered)',
      '  "errors" : [      (json array, optional) Errors encountered during processing (if there are any)',
      '    "str",          (string) error',
      '    ...',
      '  ],',
      '  "blocks" : n      (numeric) block number where estimate was found',
      '                    The request target will be clamped between 2 and the highest target',
      '                    fee estimation is able to return based on how long it has been running.',
      '                    An error is returned if not enough transactions and blocks',
      '                    have been observed to make an estimate for any number of blocks.',
      '}',
    ].join('\n'),
    examples: [{ args: [6] }],
    handler: async ([confTarget, estimateMode]) => {
      if (confTarget < 1 || confTarget > MAX_CONF_TARGET) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
      }
      const mode = parseEstimateMode(estimateMode);
      if (mode === null) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
      }
      const estimate = ctx.feeEstimator.estimateSmartFee(confTarget, mode, mempool.minFee());
      return estimate.feeRate !== undefined
        ? { feerate: feeRateToCoins(estimate.feeRate), blocks: estimate.blocks }
        : { errors: [...(estimate.errors ?? [])], blocks: estimate.blocks };
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

/** The output script of an address of this network, or -5 with Core's message. */
function addressScript(address: string, params: ChainParams, message: string): Uint8Array {
  try {
    return addressToScript(address, params.address);
  } catch (e) {
    if (e instanceof AddressError) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, message);
    throw e;
  }
}

/** Core's GenerateBlock failure: the chain refused a block this node mined. */
function notAccepted(e: unknown): unknown {
  return e instanceof BlockNotAcceptedError ? new RpcError(RpcErrorCode.INTERNAL_ERROR, `ProcessNewBlock, ${e.message}`) : e;
}

function bitsHex(bits: number): string {
  return bits.toString(16).padStart(8, '0');
}

/** Core's GetTarget().GetHex(): the 256-bit target as 64 hex digits, most significant first. */
function targetHex(bits: number): string {
  return compactToTarget(bits).target.toString(16).padStart(64, '0');
}

/** What a pool needs to verify a share's solution (docs/protocol.md §5). */
function equihashJson(params: ChainParams): JsonObject {
  const { n, k, personalization, twist } = params.equihash;
  return { n, k, personalization, twist, solutionsize: solutionSize(params.equihash) };
}
