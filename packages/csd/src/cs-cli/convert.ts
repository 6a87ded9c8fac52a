/**
 * Command-line arguments to JSON-RPC params, as bitcoin-cli's RPCConvertValues and
 * RPCConvertNamedValues: every argument is a string unless its (method, position) or
 * (method, name) is listed below, in which case it is parsed as JSON.
 */
import { CliError } from './errors.ts';
import { JsonSyntaxError, jsonArray, jsonObject, jsonString, parseJson, type JsonValue } from './json.ts';

/**
 * 'json' (the default): must parse as JSON. 'string': always a string; listed only so that -named
 * can tell a positional value containing '=' from a name=value pair. 'json-or-string': JSON when
 * it parses, else the text (a block hash or a height).
 */
type ParamFormat = 'json' | 'string' | 'json-or-string';

type Entry = readonly [method: string, index: number, name: string, format?: ParamFormat];

/**
 * Core's vRPCConvertParams for the methods csd offers, with Core's positions and names, plus the
 * OPoI methods (names as in the reference node). Methods whose every parameter is a string
 * (getmempoolentry, submitblock, decodescript, validateaddress, help, ...) need no entry.
 */
const CONVERT_PARAMS: readonly Entry[] = [
  ['backupwallet', 0, 'destination', 'string'],
  ['createmultisig', 0, 'nrequired'],
  ['createmultisig', 1, 'keys'],
  ['createrawtransaction', 0, 'inputs'],
  ['createrawtransaction', 1, 'outputs'],
  ['createrawtransaction', 2, 'locktime'],
  ['createrawtransaction', 3, 'replaceable'],
  ['createrawtransaction', 4, 'version'],
  ['decoderawtransaction', 1, 'iswitness'],
  ['disconnectnode', 1, 'nodeid'],
  ['encryptwallet', 0, 'passphrase', 'string'],
  ['estimatesmartfee', 0, 'conf_target'],
  ['fundrawtransaction', 1, 'add_inputs'],
  ['fundrawtransaction', 1, 'changePosition'],
  ['fundrawtransaction', 1, 'conf_target'],
  ['fundrawtransaction', 1, 'feeRate'],
  ['fundrawtransaction', 1, 'fee_rate'],
  ['fundrawtransaction', 1, 'includeWatching'],
  ['fundrawtransaction', 1, 'include_unsafe'],
  ['fundrawtransaction', 1, 'input_weights'],
  ['fundrawtransaction', 1, 'lockUnspents'],
  ['fundrawtransaction', 1, 'max_tx_weight'],
  ['fundrawtransaction', 1, 'maxconf'],
  ['fundrawtransaction', 1, 'minconf'],
  ['fundrawtransaction', 1, 'options'],
  ['fundrawtransaction', 1, 'replaceable'],
  ['fundrawtransaction', 1, 'solving_data'],
  ['fundrawtransaction', 1, 'subtractFeeFromOutputs'],
  ['fundrawtransaction', 2, 'iswitness'],
  ['generateblock', 1, 'transactions'],
  ['generateblock', 2, 'submit'],
  ['generatetoaddress', 0, 'nblocks'],
  ['generatetoaddress', 2, 'maxtries'],
  ['getbalance', 1, 'minconf'],
  ['getbalance', 2, 'include_watchonly'],
  ['getbalance', 3, 'avoid_reuse'],
  ['getblock', 1, 'verbose'],
  ['getblock', 1, 'verbosity'],
  ['getblockhash', 0, 'height'],
  ['getblockheader', 1, 'verbose'],
  ['getblockstats', 0, 'hash_or_height', 'json-or-string'],
  ['getblockstats', 1, 'stats'],
  ['getblocktemplate', 0, 'template_request'],
  ['getchaintxstats', 0, 'nblocks'],
  ['getmempoolancestors', 1, 'verbose'],
  ['getmempooldescendants', 1, 'verbose'],
  ['getnetworkhashps', 0, 'nblocks'],
  ['getnetworkhashps', 1, 'height'],
  ['getnewaddress', 0, 'label', 'string'],
  ['getnewaddress', 1, 'address_type', 'string'],
  ['getnodeaddresses', 0, 'count'],
  ['getrawmempool', 0, 'verbose'],
  ['getrawmempool', 1, 'mempool_sequence'],
  ['getrawtransaction', 1, 'verbose'],
  ['getrawtransaction', 1, 'verbosity'],
  ['getreceivedbyaddress', 1, 'minconf'],
  ['getreceivedbyaddress', 2, 'include_immature_coinbase'],
  ['gettransaction', 1, 'include_watchonly'],
  ['gettransaction', 2, 'verbose'],
  ['gettxout', 1, 'n'],
  ['gettxout', 2, 'include_mempool'],
  ['gettxoutproof', 0, 'txids'],
  ['gettxoutsetinfo', 1, 'hash_or_height', 'json-or-string'],
  ['gettxoutsetinfo', 2, 'use_index'],
  ['importaddress', 2, 'rescan'],
  ['importaddress', 3, 'p2sh'],
  ['importprivkey', 2, 'rescan'],
  ['importpubkey', 2, 'rescan'],
  ['keypoolrefill', 0, 'newsize'],
  ['listreceivedbyaddress', 0, 'minconf'],
  ['listreceivedbyaddress', 1, 'include_empty'],
  ['listreceivedbyaddress', 2, 'include_watchonly'],
  ['listreceivedbyaddress', 4, 'include_immature_coinbase'],
  ['listsinceblock', 0, 'blockhash', 'string'],
  ['listsinceblock', 1, 'target_confirmations'],
  ['listsinceblock', 2, 'include_watchonly'],
  ['listsinceblock', 3, 'include_removed'],
  ['listsinceblock', 4, 'include_change'],
  ['listsinceblock', 5, 'label', 'string'],
  ['listtransactions', 0, 'label', 'string'],
  ['listtransactions', 1, 'count'],
  ['listtransactions', 2, 'skip'],
  ['listtransactions', 3, 'include_watchonly'],
  ['listunspent', 0, 'minconf'],
  ['listunspent', 1, 'maxconf'],
  ['listunspent', 2, 'addresses'],
  ['listunspent', 3, 'include_unsafe'],
  ['listunspent', 4, 'include_immature_coinbase'],
  ['listunspent', 4, 'maximumAmount'],
  ['listunspent', 4, 'maximumCount'],
  ['listunspent', 4, 'minimumAmount'],
  ['listunspent', 4, 'minimumSumAmount'],
  ['listunspent', 4, 'query_options'],
  ['lockunspent', 0, 'unlock'],
  ['lockunspent', 1, 'transactions'],
  ['lockunspent', 2, 'persistent'],
  ['logging', 0, 'include'],
  ['logging', 1, 'exclude'],
  ['prioritisetransaction', 1, 'dummy'],
  ['prioritisetransaction', 2, 'fee_delta'],
  ['publishopoianswer', 3, 'token_ids'],
  ['registermodelmanifest', 2, 'gguf_size'],
  ['registermodelmanifest', 3, 'tolerance'],
  ['registermodelmanifest', 6, 'parse_special'],
  ['rescanblockchain', 0, 'start_height'],
  ['rescanblockchain', 1, 'stop_height'],
  ['restorewallet', 2, 'load_on_startup'],
  ['scantxoutset', 1, 'scanobjects'],
  ['sendmany', 0, 'dummy', 'string'],
  ['sendmany', 1, 'amounts'],
  ['sendmany', 2, 'minconf'],
  ['sendmany', 3, 'comment', 'string'],
  ['sendmany', 4, 'subtractfeefrom'],
  ['sendmany', 5, 'replaceable'],
  ['sendmany', 6, 'conf_target'],
  ['sendmany', 7, 'estimate_mode', 'string'],
  ['sendmany', 8, 'fee_rate'],
  ['sendmany', 9, 'verbose'],
  ['sendrawtransaction', 1, 'maxfeerate'],
  ['sendrawtransaction', 2, 'maxburnamount'],
  ['sendtoaddress', 0, 'address', 'string'],
  ['sendtoaddress', 1, 'amount'],
  ['sendtoaddress', 2, 'comment', 'string'],
  ['sendtoaddress', 3, 'comment_to', 'string'],
  ['sendtoaddress', 4, 'subtractfeefromamount'],
  ['sendtoaddress', 5, 'replaceable'],
  ['sendtoaddress', 6, 'conf_target'],
  ['sendtoaddress', 7, 'estimate_mode', 'string'],
  ['sendtoaddress', 8, 'avoid_reuse'],
  ['sendtoaddress', 9, 'fee_rate'],
  ['sendtoaddress', 10, 'verbose'],
  ['setban', 2, 'bantime'],
  ['setban', 3, 'absolute'],
  ['setmocktime', 0, 'timestamp'],
  ['setnetworkactive', 0, 'state'],
  ['settxfee', 0, 'amount'],
  ['signmessage', 1, 'message', 'string'],
  ['signrawtransactionwithkey', 1, 'privkeys'],
  ['signrawtransactionwithkey', 2, 'prevtxs'],
  ['signrawtransactionwithwallet', 1, 'prevtxs'],
  ['stakeopoi', 2, 'collateral_vout'],
  ['stakeopoi', 5, 'serves'],
  ['stop', 0, 'wait'],
  ['submitopoichallenge', 2, 'bond'],
  ['submitopoirequest', 3, 'max_tokens'],
  ['submitopoirequest', 4, 'payment'],
  ['submitopoirequest', 6, 'fee_per_token'],
  ['submitopoirequest', 8, 'prompt_token_count'],
  ['submitopoirequest', 11, 'audit_quorum'],
  ['submitopoirequest', 12, 'audit_fee'],
  ['submitopoiresponse', 4, 'token_count'],
  ['submitopoiresponsecommit', 4, 'token_count'],
  ['testmempoolaccept', 0, 'rawtxs'],
  ['testmempoolaccept', 1, 'maxfeerate'],
  ['verifychain', 0, 'checklevel'],
  ['verifychain', 1, 'nblocks'],
  ['verifymessage', 1, 'signature', 'string'],
  ['verifymessage', 2, 'message', 'string'],
  ['waitforblock', 1, 'timeout'],
  ['waitforblockheight', 0, 'height'],
  ['waitforblockheight', 1, 'timeout'],
  ['waitfornewblock', 0, 'timeout'],
  ['walletpassphrase', 0, 'passphrase', 'string'],
  ['walletpassphrase', 1, 'timeout'],
  ['walletpassphrasechange', 0, 'oldpassphrase', 'string'],
  ['walletpassphrasechange', 1, 'newpassphrase', 'string'],
];

interface Param {
  readonly name: string;
  readonly format: ParamFormat;
}

const byPosition = new Map<string, Param>();
const byName = new Map<string, Param>();
for (const [method, index, name, format = 'json'] of CONVERT_PARAMS) {
  // Several names may share a position (an options object's fields); its format is the same.
  byPosition.set(`${method}\0${index}`, { name, format });
  byName.set(`${method}\0${name}`, { name, format });
}

const atPosition = (method: string, index: number) => byPosition.get(`${method}\0${index}`);
const named = (method: string, name: string) => byName.get(`${method}\0${name}`);

function tryJson(raw: string): JsonValue | null {
  try {
    return parseJson(raw);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return null;
    throw error;
  }
}

function parseParam(param: Param | undefined, raw: string): JsonValue {
  if (!param || param.format === 'string') return jsonString(raw);
  const parsed = tryJson(raw);
  if (parsed) return parsed;
  if (param.format === 'json-or-string') return jsonString(raw);
  throw new CliError(`Error parsing JSON: ${raw}`);
}

/** Positional params: a JSON array. */
export function convertPositional(method: string, args: readonly string[]): JsonValue {
  return jsonArray(args.map((raw, index) => parseParam(atPosition(method, index), raw)));
}

/**
 * -named params: `name=value` arguments become members of an object; arguments without '=' (and,
 * as in Core, `x=y` arguments whose x is no parameter name while the next positional parameter
 * takes a string, or takes JSON and the whole argument parses) are positional and travel as the
 * member "args" (appended even if an explicit args=... was given: the server decides). A
 * repeated name keeps its last value.
 */
export function convertNamed(method: string, args: readonly string[]): JsonValue {
  const members = new Map<string, JsonValue>();
  const positional: JsonValue[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq < 0) {
      positional.push(parseParam(atPosition(method, positional.length), arg));
      continue;
    }
    const name = arg.slice(0, eq);
    const param = named(method, name);
    if (!param) {
      const next = atPosition(method, positional.length);
      const whole = next?.format === 'json' ? tryJson(arg) : null;
      if (whole) {
        positional.push(whole);
        continue;
      }
      if (next?.format === 'string') {
        positional.push(jsonString(arg));
        continue;
      }
    }
    // Like UniValue's pushKV: a repeated name overwrites the value in its first position.
    members.set(name, parseParam(param, arg.slice(eq + 1)));
  }
  const entries: [string, JsonValue][] = [...members];
  if (positional.length > 0) entries.push(['args', jsonArray(positional)]);
  return jsonObject(entries);
}
