import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcRegistry } from './registry.ts';

function registry(): RpcRegistry {
  const r = new RpcRegistry();
  r.register({
    name: 'getblockhash',
    category: 'Blockchain',
    description: 'Returns hash of block in best-block-chain at height provided.',
    params: [{ name: 'height', type: 'integer', description: 'The height index' }],
    result: '"hex"    (string) The block hash',
    examples: [{ args: [1000] }],
    handler: async () => '00',
  });
  r.register({
    name: 'sendtoaddress',
    category: 'Wallet',
    description: 'Send an amount to a given address.',
    params: [
      { name: 'address', type: 'string', description: 'The address to send to.' },
      { name: 'amount', type: 'amount', description: 'The amount in coins to send.\nThe fee is deducted from it if asked.' },
      { name: 'comment', type: 'string', optional: true, description: 'A comment.' },
      { name: 'replaceable', type: 'boolean', default: true, description: 'Allow replacement.' },
      { name: 'options', type: 'object', optional: true, description: 'More options.' },
    ],
    result: '"hex"    (string) The transaction id.',
    examples: [{ args: ['cs1qexample', 0.1] }, { args: ['cs1qexample', 0.1, 'donation', false, { a: 1 }], description: 'With every argument' }],
    handler: async () => '00',
  });
  r.register({
    name: 'getbestblockhash',
    category: 'Blockchain',
    description: 'Returns the hash of the best block.',
    params: [],
    result: '"hex"    (string) the block hash, hex-encoded',
    examples: [{ args: [] }],
    handler: async () => '00',
  });
  return r;
}

test('help with no command lists methods by category with their signatures, as Core', () => {
  assert.equal(
    registry().help(),
    [
      '== Blockchain ==',
      'getbestblockhash',
      'getblockhash height',
      '',
      '== Wallet ==',
      'sendtoaddress "address" amount ( "comment" replaceable options )',
    ].join('\n'),
  );
});

test('help <method> gives signature, description, arguments, result and examples', () => {
  assert.equal(
    registry().help('sendtoaddress'),
    [
      'sendtoaddress "address" amount ( "comment" replaceable options )',
      '',
      'Send an amount to a given address.',
      '',
      'Arguments:',
      '1. address        (string, required) The address to send to.',
      '2. amount         (numeric or string, required) The amount in coins to send.',
      '                  The fee is deducted from it if asked.',
      '3. comment        (string, optional) A comment.',
      '4. replaceable    (boolean, optional, default=true) Allow replacement.',
      '5. options        (json object, optional) More options.',
      '',
      'Result:',
      '"hex"    (string) The transaction id.',
      '',
      'Examples:',
      '> cs-cli sendtoaddress "cs1qexample" 0.1',
      `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id": "curltest", "method": "sendtoaddress", "params": ["cs1qexample", 0.1]}' -H 'content-type: application/json' http://127.0.0.1:16180/`,
      'With every argument',
      `> cs-cli sendtoaddress "cs1qexample" 0.1 "donation" false '{"a":1}'`,
      `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id": "curltest", "method": "sendtoaddress", "params": ["cs1qexample", 0.1, "donation", false, {"a":1}]}' -H 'content-type: application/json' http://127.0.0.1:16180/`,
    ].join('\n'),
  );
});

test('a method without parameters has no Arguments section; an unknown one is named', () => {
  const r = registry();
  assert.equal(
    r.help('getbestblockhash'),
    [
      'getbestblockhash',
      '',
      'Returns the hash of the best block.',
      '',
      'Result:',
      '"hex"    (string) the block hash, hex-encoded',
      '',
      'Examples:',
      '> cs-cli getbestblockhash',
      `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id": "curltest", "method": "getbestblockhash", "params": []}' -H 'content-type: application/json' http://127.0.0.1:16180/`,
    ].join('\n'),
  );
  assert.equal(r.help('nosuch'), 'help: unknown command: nosuch');
});

test("a placeholder argument before required ones is shown as Core's omitted optional ( dummy )", () => {
  const r = new RpcRegistry();
  r.register({
    name: 'prioritisetransaction',
    category: 'Mining',
    description: 'Accepts the transaction into mined blocks at a higher (or lower) priority.',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id.' },
      { name: 'dummy', type: 'any', placeholder: true, description: 'Must be zero or null.' },
      { name: 'fee_delta', type: 'integer', description: 'The fee value to add.' },
    ],
    result: 'true|false    (boolean) Returns true',
    examples: [{ args: ['txid', 0, 10000] }],
    handler: async () => true,
  });
  const help = r.help('prioritisetransaction');
  assert.equal(help.split('\n')[0], 'prioritisetransaction "txid" ( dummy ) fee_delta');
  assert.match(help, /^2\. dummy +\(any, optional\) Must be zero or null\.$/m);
  assert.match(help, /^3\. fee_delta +\(numeric, required\)/m);
});
