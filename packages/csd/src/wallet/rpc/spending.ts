/**
 * Wallet RPC methods that spend: sendtoaddress, sendmany, fundrawtransaction, settxfee,
 * lockunspent, listlockunspent (Core's wallet/rpc/spend.cpp and coins.cpp).
 */
import { addressToScript, toHex } from '@cs/consensus';
import { amountToJson, amountFromValue } from '@cs/runtime/amount';
import type { WalletRpcContext } from './context.ts';
import { jsonInteger, jsonString, parseHashV } from '../../rpc/params.ts';
import { decodeHexTx } from '../../rpc/methods/rawtransactions/decode.ts';
import { broadcastError } from '../../rpc/methods/rawtransactions/submit.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import { isJsonObject, jsonTypeName, type JsonObject, type JsonValue } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { MAX_TX_FEE, WALLET_MIN_FEE, formatFeeRate } from '../fee-policy.ts';
import type { FundingRecipient } from '../funding.ts';
import { fundRaw, send, type SendOutcome } from '../send.ts';
import type { Wallet } from '../wallet.ts';
import { EXAMPLE_ADDRESS, EXAMPLE_TXID, parseAddress, parseAddressType, walletCall, walletOf } from './common.ts';
import { feeRequest, parseFeeRatePerVbyte } from './fee-args.ts';

/** Core's m_signal_bip125_rbf default (-walletrbf): wallet transactions signal replaceability. */
const DEFAULT_REPLACEABLE = true;

function positiveAmount(value: JsonValue | undefined): bigint {
  const amount = amountFromValue(value);
  if (amount <= 0n) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Invalid amount for send');
  return amount;
}

/** The result of a send: the txid, or with `verbose` also why the fee rate was chosen. */
function sendResult(outcome: SendOutcome, verbose: boolean): JsonValue {
  if (outcome.kind === 'rejected') throw broadcastError(outcome.failure);
  return verbose ? { txid: outcome.txid, fee_reason: outcome.fee.reason } : outcome.txid;
}

const FEE_RATE_DESCRIPTION = 'Specify a fee rate in units/vB.';
const ESTIMATE_MODE_DESCRIPTION = 'The fee estimate mode, must be one of (case insensitive):\n"unset"\n"economical"\n"conservative"';
const CONF_TARGET_DESCRIPTION = 'Confirmation target in blocks';

/** fundrawtransaction's options object, checked as Core's RPCTypeCheckObj does. */
interface FundOptions {
  readonly addInputs: boolean;
  readonly includeUnsafe: boolean;
  readonly changeScript?: Uint8Array;
  readonly changePosition?: number;
  readonly changeType?: string;
  readonly lockUnspents: boolean;
  readonly feeRate?: bigint;
  readonly subtractFrom: Set<number>;
  readonly replaceable: boolean;
  readonly confTarget?: number;
  readonly estimateMode?: string;
  readonly minConf: number;
}

const FUND_OPTION_TYPES: Readonly<Record<string, string>> = {
  add_inputs: 'bool',
  include_unsafe: 'bool',
  changeAddress: 'string',
  changePosition: 'number',
  change_type: 'string',
  includeWatching: 'bool',
  lockUnspents: 'bool',
  fee_rate: 'any',
  feeRate: 'any',
  subtractFeeFromOutputs: 'array',
  replaceable: 'bool',
  conf_target: 'number',
  estimate_mode: 'string',
  minconf: 'number',
};

function parseFundOptions(ctx: WalletRpcContext, value: JsonValue | undefined, outputs: number): FundOptions {
  // Core still takes a bare boolean here: the old includeWatching argument.
  const o: JsonObject = isJsonObject(value) ? value : {};
  for (const [key, v] of Object.entries(o)) {
    const expected = FUND_OPTION_TYPES[key];
    if (!expected) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Unexpected key ${key}`);
    if (v !== null && v !== undefined && expected !== 'any' && jsonTypeName(v) !== expected) {
      throw new RpcError(RpcErrorCode.TYPE_ERROR, `JSON value of type ${jsonTypeName(v)} for field ${key} is not of expected type ${expected}`);
    }
  }
  if (o.changeAddress !== undefined && o.change_type !== undefined) {
    throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Cannot specify both changeAddress and address_type options');
  }
  let changeScript: Uint8Array | undefined;
  if (typeof o.changeAddress === 'string') {
    try {
      changeScript = addressToScript(o.changeAddress, ctx.params.address);
    } catch {
      throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Change address must be a valid cs address');
    }
  }
  let changePosition: number | undefined;
  if (o.changePosition !== undefined && o.changePosition !== null) {
    changePosition = jsonInteger(o.changePosition, -2147483648, 2147483647);
    if (changePosition < -1 || changePosition > outputs) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'changePosition out of bounds');
    if (changePosition === -1) changePosition = undefined;
  }
  if (o.fee_rate !== undefined && o.feeRate !== undefined) {
    throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Cannot specify both fee_rate (units/vB) and feeRate (coins/kvB)');
  }
  let feeRate: bigint | undefined;
  if (o.fee_rate !== undefined && o.fee_rate !== null) feeRate = parseFeeRatePerVbyte(o.fee_rate);
  if (o.feeRate !== undefined && o.feeRate !== null) feeRate = amountFromValue(o.feeRate);
  const subtractFrom = new Set<number>();
  for (const v of (o.subtractFeeFromOutputs as readonly JsonValue[] | undefined) ?? []) {
    const pos = jsonInteger(v, -2147483648, 2147483647);
    if (subtractFrom.has(pos)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid parameter, duplicated position: ${pos}`);
    if (pos < 0 || pos >= outputs) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid parameter, value out of range: ${pos}`);
    subtractFrom.add(pos);
  }
  return {
    addInputs: o.add_inputs !== false,
    includeUnsafe: o.include_unsafe === true,
    changeScript,
    changePosition,
    changeType: typeof o.change_type === 'string' ? o.change_type : undefined,
    lockUnspents: o.lockUnspents === true,
    feeRate,
    subtractFrom,
    replaceable: typeof o.replaceable === 'boolean' ? o.replaceable : DEFAULT_REPLACEABLE,
    confTarget: typeof o.conf_target === 'number' ? jsonInteger(o.conf_target, 1, 0x7fffffff) : undefined,
    estimateMode: typeof o.estimate_mode === 'string' ? o.estimate_mode : undefined,
    minConf: typeof o.minconf === 'number' ? jsonInteger(o.minconf, 0, 0x7fffffff) : 0,
  };
}

/** lockunspent's outpoints: each known to the wallet, in range, and unspent. */
function parseOutpoints(wallet: Wallet, list: readonly JsonValue[]): { txid: string; vout: number }[] {
  return list.map((value) => {
    if (!isJsonObject(value)) throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(value)} is not of expected type object`);
    const txid = parseHashV(value.txid, 'txid');
    const vout = jsonInteger(value.vout, -2147483648, 2147483647);
    if (vout < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    const wtx = wallet.ledger.get(txid);
    if (!wtx) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, unknown transaction');
    if (vout >= wtx.tx.outputs.length) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, vout index out of bounds');
    if (wallet.view.isSpent(txid, vout)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, expected unspent output');
    return { txid, vout };
  });
}

export function registerSpendingMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'sendtoaddress',
    category: 'Wallet',
    description: 'Send an amount to a given address.\nRequires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.',
    params: [
      { name: 'address', type: 'string', description: 'The cs address to send to.' },
      { name: 'amount', type: 'amount', description: 'The amount in coins to send. eg 0.1' },
      {
        name: 'comment',
        type: 'string',
        optional: true,
        description: 'A comment used to store what the transaction is for.\nThis is not part of the transaction, just kept in your wallet.',
      },
      {
        name: 'comment_to',
        type: 'string',
        optional: true,
        description:
          "A comment to store the name of the person or organization\nto which you're sending the transaction. This is not part of the\ntransaction, just kept in your wallet.",
      },
      {
        name: 'subtractfeefromamount',
        type: 'boolean',
        default: false,
        description:
          'The fee will be deducted from the amount being sent.\nThe recipient will receive less coins than you enter in the amount field.',
      },
      {
        name: 'replaceable',
        type: 'boolean',
        default: DEFAULT_REPLACEABLE,
        description: 'Signal that this transaction can be replaced by a transaction (BIP 125)',
      },
      { name: 'conf_target', type: 'integer', optional: true, description: CONF_TARGET_DESCRIPTION },
      { name: 'estimate_mode', type: 'string', default: 'unset', description: ESTIMATE_MODE_DESCRIPTION },
      {
        name: 'avoid_reuse',
        type: 'boolean',
        default: true,
        description: '(only available if avoid_reuse wallet flag is set, which csd never sets) Avoid spending from dirty addresses',
      },
      { name: 'fee_rate', type: 'any', optional: true, description: FEE_RATE_DESCRIPTION },
      { name: 'verbose', type: 'boolean', default: false, description: 'If true, return extra information about the transaction.' },
    ],
    result: '"hex"    (string) The transaction id. With verbose: {"txid": "hex", "fee_reason": "str"}',
    examples: [{ args: [EXAMPLE_ADDRESS, 0.1] }, { args: [EXAMPLE_ADDRESS, 0.1, 'donation', 'seans outpost', true] }],
    handler: async ([address, amount, comment, commentTo, subtractFee, replaceable, confTarget, estimateMode, , feeRate, verbose], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(() => {
        wallet.encryption.requireKey();
        const fee = feeRequest(confTarget, estimateMode, feeRate === undefined || feeRate === null ? undefined : parseFeeRatePerVbyte(feeRate));
        const script = parseAddress(ctx, address);
        if (amount <= 0n) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Invalid amount for send');
        const outcome = send(
          wallet,
          [{ script, amount, subtractFee }],
          { fee, minConf: 0, replaceable },
          { comment: comment ?? '', commentTo: commentTo ?? '' },
        );
        return sendResult(outcome, verbose);
      });
    },
  });

  registry.register({
    name: 'sendmany',
    category: 'Wallet',
    description:
      'Send multiple times. Amounts are double-precision floating point numbers.\nRequires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.',
    params: [
      { name: 'dummy', type: 'string', description: 'Must be set to "" for backwards compatibility.' },
      { name: 'amounts', type: 'object', description: 'The addresses and amounts: {"address": amount, ...}' },
      { name: 'minconf', type: 'integer', optional: true, description: 'Ignored dummy value (as in Core)' },
      { name: 'comment', type: 'string', optional: true, description: 'A comment' },
      {
        name: 'subtractfeefrom',
        type: 'array',
        default: [],
        description:
          'The addresses.\nThe fee will be equally deducted from the amount of each selected address.\nThose recipients will receive less coins than you enter in their corresponding amount field.\nIf no addresses are specified here, the sender pays the fee.',
      },
      {
        name: 'replaceable',
        type: 'boolean',
        default: DEFAULT_REPLACEABLE,
        description: 'Signal that this transaction can be replaced by a transaction (BIP 125)',
      },
      { name: 'conf_target', type: 'integer', optional: true, description: CONF_TARGET_DESCRIPTION },
      { name: 'estimate_mode', type: 'string', default: 'unset', description: ESTIMATE_MODE_DESCRIPTION },
      { name: 'fee_rate', type: 'any', optional: true, description: FEE_RATE_DESCRIPTION },
      { name: 'verbose', type: 'boolean', default: false, description: 'If true, return extra information about the transaction.' },
    ],
    result: '"hex"    (string) The transaction id for the send. With verbose: {"txid": "hex", "fee_reason": "str"}',
    examples: [{ args: ['', { [EXAMPLE_ADDRESS]: 0.01, csrt1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqsrksj9j: 0.02 }] }],
    handler: async ([dummy, amounts, , comment, subtractFeeFrom, replaceable, confTarget, estimateMode, feeRate, verbose], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(() => {
        if (dummy !== '') throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Dummy value must be set to ""');
        wallet.encryption.requireKey();
        const fee = feeRequest(confTarget, estimateMode, feeRate === undefined || feeRate === null ? undefined : parseFeeRatePerVbyte(feeRate));
        const subtract = new Set(subtractFeeFrom.map((v) => jsonString(v)));
        const seen = new Set<string>();
        const recipients: FundingRecipient[] = Object.entries(amounts).map(([address, value]) => {
          const script = parseAddress(ctx, address);
          const key = toHex(script);
          if (seen.has(key)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid parameter, duplicated address: ${address}`);
          seen.add(key);
          return { script, amount: positiveAmount(value ?? null), subtractFee: subtract.has(address) };
        });
        const outcome = send(wallet, recipients, { fee, minConf: 0, replaceable }, { comment: comment ?? '', commentTo: '' });
        return sendResult(outcome, verbose);
      });
    },
  });

  registry.register({
    name: 'settxfee',
    category: 'Wallet',
    description:
      'Set the transaction fee rate in coins/kvB for this wallet. Overrides the global -paytxfee command line parameter.\nCan be deactivated by passing 0 as the fee. In that case automatic fee selection will be used by default.\nThe setting lasts until the node stops.',
    params: [{ name: 'amount', type: 'amount', description: 'The transaction fee rate in coins/kvB' }],
    result: 'true|false    (boolean) Returns true if successful',
    examples: [{ args: [0.00001] }],
    handler: async ([amount], call) => {
      const wallet = walletOf(ctx, call);
      const minRelay = ctx.mempool.info().minrelaytxfee;
      // -maxtxfee (0.1 coin) as a rate per kvB is the most settxfee may ask.
      if (amount > MAX_TX_FEE)
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `txfee cannot be more than wallet max tx fee (${formatFeeRate(MAX_TX_FEE)})`);
      if (amount !== 0n && amount < minRelay)
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `txfee cannot be less than min relay tx fee (${formatFeeRate(minRelay)})`);
      if (amount !== 0n && amount < WALLET_MIN_FEE)
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `txfee cannot be less than wallet min fee (${formatFeeRate(WALLET_MIN_FEE)})`);
      wallet.payTxFee = amount;
      return true;
    },
  });

  registry.register({
    name: 'fundrawtransaction',
    category: 'Wallet',
    description:
      'If the transaction has no inputs, they will be automatically selected to meet its out value.\n' +
      'It will add at most one change output to the outputs.\n' +
      'No existing outputs will be modified unless "subtractFeeFromOutputs" is specified.\n' +
      'Note that inputs which were signed may need to be resigned after completion since in/outputs have been added.\n' +
      'The inputs added will not be signed, use signrawtransactionwithkey or signrawtransactionwithwallet for that.\n' +
      'Inputs already in the transaction must be coins of this wallet.',
    params: [
      { name: 'hexstring', type: 'string', description: 'The hex string of the raw transaction' },
      {
        name: 'options',
        type: 'any',
        optional: true,
        description:
          'An object with: add_inputs (default true), include_unsafe (default false), changeAddress, changePosition,\n' +
          'change_type ("legacy" or "bech32"), includeWatching (ignored: watch-only coins cannot be signed here), lockUnspents (default false),\n' +
          'fee_rate (units/vB), feeRate (coins/kvB), subtractFeeFromOutputs ([vout_index,...]), replaceable (default true),\n' +
          'conf_target, estimate_mode, minconf (default 0)',
      },
      {
        name: 'iswitness',
        type: 'boolean',
        optional: true,
        description: 'Whether the transaction hex is a serialized witness transaction (see decoderawtransaction).',
      },
    ],
    result: [
      '{                     (json object)',
      '  "hex" : "hex",      (string) The resulting raw transaction (hex-encoded string)',
      '  "fee" : n,          (numeric) Fee in coins the resulting transaction pays',
      '  "changepos" : n     (numeric) The position of the added change output, or -1',
      '}',
    ].join('\n'),
    examples: [{ args: ['rawtransactionhex'] }, { args: ['rawtransactionhex', { fee_rate: 2 }] }],
    handler: async ([hexstring, options, iswitness], call) => {
      const wallet = walletOf(ctx, call);
      const tx = decodeHexTx(hexstring, iswitness !== true, iswitness !== false);
      if (!tx) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, 'TX decode failed');
      if (tx.outputs.length === 0) throw new RpcError(RpcErrorCode.WALLET_ERROR, 'TX must have at least one output');
      const o = parseFundOptions(ctx, options, tx.outputs.length);
      const fee = feeRequest(o.confTarget, o.estimateMode, o.feeRate);
      const changeType = o.changeType === undefined ? undefined : parseAddressType(o.changeType, 'bech32');
      return walletCall(
        () => {
          const r = fundRaw(wallet, tx, o.subtractFrom, {
            fee,
            minConf: o.minConf,
            replaceable: o.replaceable,
            includeUnsafe: o.includeUnsafe,
            changeType,
            changeScript: o.changeScript,
            changePosition: o.changePosition,
            addInputs: o.addInputs,
            lockUnspents: o.lockUnspents,
          });
          return { hex: toHex(r.tx.encode()), fee: amountToJson(r.fee), changepos: r.changePosition };
        },
        { 'insufficient-funds': RpcErrorCode.WALLET_ERROR, 'create-failed': RpcErrorCode.WALLET_ERROR },
      );
    },
  });

  registry.register({
    name: 'lockunspent',
    category: 'Wallet',
    description:
      'Updates list of temporarily unspendable outputs.\n' +
      'Temporarily lock (unlock=false) or unlock (unlock=true) specified transaction outputs.\n' +
      'If no transaction outputs are specified when unlocking then all current locked transaction outputs are unlocked.\n' +
      'A locked transaction output will not be chosen by automatic coin selection, when spending coins.\n' +
      'Locks are stored and survive a restart unless persistent is false (Core keeps them in memory by default).\n' +
      'Also see the listunspent call',
    params: [
      { name: 'unlock', type: 'boolean', description: 'Whether to unlock (true) or lock (false) the specified transactions' },
      { name: 'transactions', type: 'array', default: [], description: 'The transaction outputs and within each, the txid (string) vout (numeric).' },
      {
        name: 'persistent',
        type: 'boolean',
        default: true,
        description: 'Whether to write/erase this lock in the wallet database, or keep the change in memory only. Ignored for unlocking.',
      },
    ],
    result: 'true|false    (boolean) Whether the command was successful or not',
    examples: [{ args: [false, [{ txid: EXAMPLE_TXID, vout: 1 }]] }, { args: [true, [{ txid: EXAMPLE_TXID, vout: 1 }]] }],
    handler: async ([unlock, transactions, persistent], call) => {
      const wallet = walletOf(ctx, call);
      if (unlock && transactions.length === 0) {
        wallet.store.write((w) => wallet.locks.unlockAll(w));
        return true;
      }
      const coins = parseOutpoints(wallet, transactions);
      for (const coin of coins) {
        const locked = wallet.locks.isLocked(coin.txid, coin.vout);
        if (unlock && !locked) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, expected locked output');
        if (!unlock && locked) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter, output already locked');
      }
      // Every outpoint checked first, then all changed in one write.
      wallet.store.write((w) => {
        for (const coin of coins) {
          if (unlock) wallet.locks.unlock(coin, w);
          else wallet.locks.lock(coin, persistent, w);
        }
      });
      return true;
    },
  });

  registry.register({
    name: 'listlockunspent',
    category: 'Wallet',
    description: 'Returns list of temporarily unspendable outputs.\nSee the lockunspent call to lock and unlock transactions for spending.',
    params: [],
    result: [
      '[                      (json array)',
      '  {                    (json object)',
      '    "txid" : "hex",    (string) The transaction id locked',
      '    "vout" : n         (numeric) The vout value',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async (_args, call) =>
      walletOf(ctx, call)
        .locks.list()
        .map((c) => ({ txid: c.txid, vout: c.vout })),
  });
}
