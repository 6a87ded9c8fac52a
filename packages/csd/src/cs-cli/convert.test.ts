import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertNamed, convertPositional } from './convert.ts';
import { writeJson } from './json.ts';

const positional = (method: string, ...args: string[]) => writeJson(convertPositional(method, args));
const named = (method: string, ...args: string[]) => writeJson(convertNamed(method, args));

test('arguments are strings unless the table lists their position', () => {
  assert.equal(positional('getblockhash', '5'), '[5]');
  assert.equal(positional('getblock', 'abc', '2'), '["abc",2]');
  assert.equal(positional('getblockheader', 'abc', 'false'), '["abc",false]');
  assert.equal(positional('gettxout', 'ab', '1', 'true'), '["ab",1,true]');
  assert.equal(positional('getrawtransaction', 'ab', '1', 'cd'), '["ab",1,"cd"]');
  assert.equal(positional('sendtoaddress', 'addr', '0.1', 'c', 'to', 'true'), '["addr",0.1,"c","to",true]');
  assert.equal(positional('sendmany', '', '{"a":0.5}', '1'), '["",{"a":0.5},1]');
  assert.equal(
    positional('createrawtransaction', '[{"txid":"ab","vout":0}]', '[{"addr":1}]', '0', 'true'),
    '[[{"txid":"ab","vout":0}],[{"addr":1}],0,true]',
  );
  assert.equal(positional('testmempoolaccept', '["00"]', '0.1'), '[["00"],0.1]');
  assert.equal(positional('getrawmempool', 'true', 'false'), '[true,false]');
  assert.equal(positional('generatetoaddress', '101', 'addr', '1000000'), '[101,"addr",1000000]');
  assert.equal(positional('generateblock', 'addr', '["tx"]', 'false'), '["addr",["tx"],false]');
  assert.equal(positional('prioritisetransaction', 'txid', '0', '1000'), '["txid",0,1000]');
  assert.equal(positional('estimatesmartfee', '6', 'ECONOMICAL'), '[6,"ECONOMICAL"]');
  assert.equal(positional('listunspent', '0', '9999999', '["a"]', 'true', '{"minimumAmount":0.5}'), '[0,9999999,["a"],true,{"minimumAmount":0.5}]');
  assert.equal(positional('lockunspent', 'false', '[{"txid":"a","vout":1}]'), '[false,[{"txid":"a","vout":1}]]');
  assert.equal(positional('walletpassphrase', '12', '60'), '["12",60]', 'passphrases stay strings even when numeric');
  assert.equal(positional('signmessage', 'addr', '1'), '["addr","1"]');
  assert.equal(positional('stop', 'true'), '[true]');
  assert.equal(positional('submitopoirequest', 'id', 'model', 'hash', '256', '0.01', 'addr'), '["id","model","hash",256,0.01,"addr"]');
  assert.equal(positional('getmempoolentry', '1'), '["1"]', 'unlisted methods take strings');
  assert.equal(positional('help', 'getblock'), '["getblock"]');
});

test('a JSON position that is not JSON is an error in Core words', () => {
  assert.throws(() => positional('getblockhash', 'tip'), { name: 'CliError', message: 'Error parsing JSON: tip' });
  assert.throws(() => positional('createrawtransaction', '[{"txid":}]'), { message: 'Error parsing JSON: [{"txid":}]' });
});

test('JSON-or-string positions take JSON when it parses and the text otherwise', () => {
  assert.equal(positional('gettxoutsetinfo', 'muhash', '100'), '["muhash",100]');
  assert.equal(positional('gettxoutsetinfo', 'muhash', '00ab'), '["muhash","00ab"]');
});

test('-named: name=value pairs become an object, converted by name', () => {
  assert.equal(named('getblock', 'blockhash=abc', 'verbosity=2'), '{"blockhash":"abc","verbosity":2}');
  assert.equal(named('sendtoaddress', 'address=a', 'amount=0.1', 'comment='), '{"address":"a","amount":0.1,"comment":""}');
  assert.equal(named('getblock', 'verbosity=1', 'blockhash=x', 'verbosity=2'), '{"verbosity":2,"blockhash":"x"}', 'later wins, first position kept');
  assert.throws(() => named('getblockhash', 'height=tip'), { message: 'Error parsing JSON: tip' });
});

test('-named: arguments without a known name go positionally into "args"', () => {
  assert.equal(named('getblock', 'abc', 'verbosity=0'), '{"verbosity":0,"args":["abc"]}');
  assert.equal(named('sendtoaddress', 'x=y', 'amount=1'), '{"amount":1,"args":["x=y"]}', 'a string position takes x=y whole');
  assert.equal(named('testmempoolaccept', '["a=b"]'), '{"args":[["a=b"]]}', 'a JSON position takes it when it parses');
  assert.equal(named('help', 'a=b'), '{"a":"b"}');
});
