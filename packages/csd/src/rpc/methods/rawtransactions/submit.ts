/**
 * Submitting signed transactions to the mempool (sendrawtransaction) or only testing them
 * (testmempoolaccept), and the RPC error for a refused one, which the wallet's and OPoI's sends
 * report alike.
 */
import { COIN, isUnspendable } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { JsonObject } from '../../../format/json-value.ts';
import type { AcceptFailure } from '../../../mempool/results.ts';
import { feeForSize, feeRateOf, feeRateToCoins, type FeeRate } from '../../../policy/feerate.ts';
import { DEFAULT_MAX_RAW_TX_FEE_RATE } from '../../../policy/policy.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { jsonString } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { decodeHexTx, hasValidOps } from './decode.ts';

/** Core's MAX_PACKAGE_COUNT: testmempoolaccept takes at most this many transactions. */
export const MAX_PACKAGE_COUNT = 25;
const DECODE_HINT = 'Make sure the tx has at least one input.';

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

const FEE_RATE_DESCRIPTION =
  'Reject transactions whose fee rate is higher than the specified value, expressed in coins/kvB.\n' +
  'Fee rates larger than 1 coin/kvB are rejected.\nSet to 0 to accept any fee rate.';

export function registerSubmitMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, mempool } = ctx;

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
      // confirmed already; one in the pool is answered with its txid and announced to peers again.
      if (tx.outputs.some((_, vout) => chain.getCoin({ txid: tx.txid, vout }))) {
        throw new RpcError(RpcErrorCode.VERIFY_ALREADY_IN_CHAIN, 'Transaction outputs already in utxo set');
      }
      if (mempool.has(tx.txidHex)) {
        mempool.rebroadcast(tx.txidHex);
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
