/**
 * Signing raw transactions: signrawtransactionwithwallet (Core's wallet/rpc/spend.cpp) and
 * signrawtransactionwithkey (rpc/rawtransaction.cpp; it needs no wallet, but lives with its twin).
 */
import { AddressError, decodeWif, fromHex, hashToHex, publicKeyCreate, toHex, type Transaction, type TxOut } from '@cs/consensus';
import type { WalletRpcContext } from './context.ts';
import { amountFromValue } from '@cs/runtime/amount';
import { isHexOrEmpty, jsonInteger, jsonString, parseHashV } from '../../rpc/params.ts';
import { decodeHexTx } from '../../rpc/methods/rawtransactions/decode.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import { isJsonObject, jsonTypeName, type JsonObject, type JsonValue } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { walletKeySource } from '../send.ts';
import { keySourceFromKeys, parseSighashType, signTransaction, type KeySource } from '../signer.ts';
import { walletCall, walletOf } from './common.ts';

const DECODE_FAILED = 'TX decode failed. Make sure the tx has at least one input.';

interface PrevTxs {
  /** txid:vout → the spent output. */
  readonly outputs: Map<string, TxOut>;
  readonly redeemScripts: Uint8Array[];
}

function hexField(o: JsonObject, name: string): Uint8Array {
  const text = jsonString(o[name]);
  if (!isHexOrEmpty(text)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  return fromHex(text);
}

/** Core's ParsePrevouts: outputs the caller vouches for, with their P2SH redeem scripts. */
function parsePrevTxs(list: readonly JsonValue[] | undefined): PrevTxs {
  const outputs = new Map<string, TxOut>();
  const redeemScripts: Uint8Array[] = [];
  for (const value of list ?? []) {
    if (!isJsonObject(value)) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, 'expected object with {"txid\'","vout","scriptPubKey"}');
    const txid = parseHashV(value.txid, 'txid');
    const vout = jsonInteger(value.vout, -2147483648, 2147483647);
    if (vout < 0) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, 'vout cannot be negative');
    const scriptPubKey = hexField(value, 'scriptPubKey');
    const amount = value.amount === undefined ? 0n : amountFromValue(value.amount);
    outputs.set(`${txid}:${vout}`, { value: amount, scriptPubKey });
    if (value.redeemScript !== undefined) redeemScripts.push(hexField(value, 'redeemScript'));
  }
  return { outputs, redeemScripts };
}

/** The outputs the inputs spend: given ones first, then the UTXO set and the mempool (Core's FindCoins). */
function spentOutputs(ctx: WalletRpcContext, tx: Transaction, prev: PrevTxs): (TxOut | undefined)[] {
  const view = ctx.mempool.coinView();
  return tx.inputs.map((input) => {
    const given = prev.outputs.get(`${hashToHex(input.prevout.txid)}:${input.prevout.vout}`);
    if (given) return given;
    const coin = view.getCoin(input.prevout);
    return coin ? { value: coin.value, scriptPubKey: coin.scriptPubKey } : undefined;
  });
}

/** Core's SignTransactionResultToJSON. */
function signResult(ctx: WalletRpcContext, tx: Transaction, prev: PrevTxs, keys: KeySource, sighashtype: string): JsonObject {
  const hashType = parseSighashType(sighashtype);
  if (hashType === null) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `'${sighashtype}' is not a valid sighash parameter.`);
  const { tx: signed, errors } = signTransaction(tx, spentOutputs(ctx, tx, prev), keys, hashType);
  const result: JsonObject = { hex: toHex(signed.encode()), complete: errors.length === 0 };
  if (errors.length === 0) return result;
  return {
    ...result,
    errors: errors.map(({ index, error }) => {
      const input = signed.inputs[index];
      return {
        txid: hashToHex(input.prevout.txid),
        vout: input.prevout.vout,
        witness: input.witness.map(toHex),
        scriptSig: toHex(input.scriptSig),
        sequence: input.sequence,
        error,
      };
    }),
  };
}

function decodeOrThrow(hexstring: string): Transaction {
  const tx = decodeHexTx(hexstring);
  if (!tx) throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, DECODE_FAILED);
  return tx;
}

const PREVTXS_DESCRIPTION =
  'The previous dependent transaction outputs: [{"txid": "hex", "vout": n, "scriptPubKey": "hex", "redeemScript": "hex", "amount": amount}, ...]\n' +
  '(amount is required for segwit inputs; redeemScript for P2SH-wrapped segwit inputs)';
const SIGHASH_DESCRIPTION =
  'The signature hash type. Must be one of:\n"DEFAULT"\n"ALL"\n"NONE"\n"SINGLE"\n"ALL|ANYONECANPAY"\n"NONE|ANYONECANPAY"\n"SINGLE|ANYONECANPAY"';
const SIGN_RESULT = [
  '{                             (json object)',
  '  "hex" : "hex",              (string) The hex-encoded raw transaction with signature(s)',
  '  "complete" : true|false,    (boolean) If the transaction has a complete set of signatures',
  '  "errors" : [                (json array, optional) Script verification errors (if there are any)',
  '    {                         (json object)',
  '      "txid" : "hex",         (string) The hash of the referenced, previous transaction',
  '      "vout" : n,             (numeric) The index of the output to spent and used as input',
  '      "witness" : [ "hex", ... ], (json array) The witness stack',
  '      "scriptSig" : "hex",    (string) The hex-encoded signature script',
  '      "sequence" : n,         (numeric) Script sequence number',
  '      "error" : "str"         (string) Verification or signing error related to the input',
  '    },',
  '    ...',
  '  ]',
  '}',
].join('\n');

/** signrawtransactionwithwallet: needs the wallet. */
export function registerWalletSigningMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'signrawtransactionwithwallet',
    category: 'Wallet',
    description:
      'Sign inputs for raw transaction (serialized, hex-encoded).\n' +
      'The second optional argument (may be null) is an array of previous transaction outputs that\n' +
      'this transaction depends on but may not yet be in the block chain.\n' +
      'Requires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.',
    params: [
      { name: 'hexstring', type: 'string', description: 'The transaction hex string' },
      { name: 'prevtxs', type: 'array', optional: true, description: PREVTXS_DESCRIPTION },
      { name: 'sighashtype', type: 'string', default: 'DEFAULT', description: SIGHASH_DESCRIPTION },
    ],
    result: SIGN_RESULT,
    examples: [{ args: ['myhex'] }],
    handler: async ([hexstring, prevtxs, sighashtype], call) => {
      const wallet = walletOf(ctx, call);
      const tx = decodeOrThrow(hexstring);
      return walletCall(() => {
        const masterKey = wallet.encryption.requireKey();
        return signResult(ctx, tx, parsePrevTxs(prevtxs), walletKeySource(wallet.keyring, masterKey), sighashtype);
      });
    },
  });
}

/** signrawtransactionwithkey: a node method in Core, available with -disablewallet too. */
export function registerKeySigningMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'signrawtransactionwithkey',
    category: 'Rawtransactions',
    description:
      'Sign inputs for raw transaction (serialized, hex-encoded).\n' +
      'The second argument is an array of base58-encoded private\n' +
      'keys that will be the only keys used to sign the transaction.\n' +
      'The third optional argument (may be null) is an array of previous transaction outputs that\n' +
      'this transaction depends on but may not yet be in the block chain.\n' +
      'Single-key scripts are signed: P2WPKH, P2PKH, P2PK and P2SH-wrapped P2WPKH.',
    params: [
      { name: 'hexstring', type: 'string', description: 'The transaction hex string' },
      { name: 'privkeys', type: 'array', description: 'The base58-encoded private keys for signing' },
      { name: 'prevtxs', type: 'array', optional: true, description: PREVTXS_DESCRIPTION },
      { name: 'sighashtype', type: 'string', default: 'DEFAULT', description: SIGHASH_DESCRIPTION },
    ],
    result: SIGN_RESULT,
    examples: [{ args: ['myhex', ['key1', 'key2']] }],
    handler: async ([hexstring, privkeys, prevtxs, sighashtype]) => {
      const tx = decodeOrThrow(hexstring);
      const keys = privkeys.map((value) => {
        if (typeof value !== 'string')
          throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(value)} is not of expected type string`);
        try {
          const { privateKey, compressed } = decodeWif(value, ctx.params.address);
          return { privateKey, publicKey: publicKeyCreate(privateKey, compressed) };
        } catch (e) {
          if (!(e instanceof AddressError)) throw e;
          throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Invalid private key');
        }
      });
      const prev = parsePrevTxs(prevtxs);
      try {
        return signResult(ctx, tx, prev, keySourceFromKeys(keys, prev.redeemScripts), sighashtype);
      } finally {
        for (const k of keys) k.privateKey.fill(0);
      }
    },
  });
}
