import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaTs } from './rpc-description.ts';
import { parseResult } from './result-schema.ts';

test('a scalar result, with its description', () => {
  assert.deepEqual(parseResult('n    (numeric) The current block count'), {
    schema: { type: 'number', description: 'The current block count' },
    exact: true,
  });
});

test('objects list their fields, optional ones not required; descriptions may continue on deeper lines', () => {
  const { schema, exact } = parseResult(
    [
      '{                      (json object)',
      '  "hash" : "hex",      (string) the block',
      '  "note" : "str",      (string, optional) said only',
      '                       sometimes, on two lines',
      '  "tx" : [ "hex", ... ], (json array) txids',
      '  "fee" : n            (numeric or null) null until known',
      '}',
    ].join('\n'),
  );
  assert.equal(exact, true, 'every line read');
  assert.equal(
    schemaTs(schema, ''),
    '{\n  readonly hash: string;\n  readonly note?: string;\n  readonly tx: readonly string[];\n  readonly fee: number | null;\n}',
    'the TypeScript type',
  );
});

test('an object or array that may be null is a union with null', () => {
  const { schema, exact } = parseResult(
    [
      '{                      (json object)',
      '  "audit" : {          (json object or null) null until published',
      '    "round" : n        (numeric) the round',
      '  },',
      '  "ids" : [            (json array or null) none yet',
      '    n,                 (numeric) an id',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
  );
  assert.equal(exact, true, 'every line read');
  assert.equal(
    schemaTs(schema, ''),
    '{\n  readonly audit: {\n    readonly round: number;\n  } | null;\n  readonly ids: readonly number[] | null;\n}',
    'the TypeScript type',
  );
});

test('one field and ... is a map; headings separate alternatives', () => {
  const { schema, exact } = parseResult(
    [
      'for verbose = false',
      '"hex"    (string) the header',
      '',
      'for verbose = true',
      '{   (json object)',
      '  "rule" : n,  (numeric) bit',
      '  ...',
      '}',
    ].join('\n'),
  );
  assert.equal(exact, true, 'both alternatives read');
  assert.equal(schemaTs(schema, ''), 'string | { readonly [key: string]: number }', 'a union of a string and a map');
});

test('text that does not list every field widens the type and is marked inexact', () => {
  for (const text of [
    '{ ... }    (json object) The manifest',
    '{ "a", "b" }',
    ['{   (json object)', '  ...,   Same output as verbosity = 1', '  "tx" : n  (numeric) count', '}'].join('\n'),
    ['{   (json object)', '  (the fields of another method)', '}'].join('\n'),
  ]) {
    assert.equal(parseResult(text).exact, false, text);
  }
  const open = parseResult(['{   (json object)', '  ...,   Same output as verbosity = 1', '  "tx" : n  (numeric) count', '}'].join('\n'));
  assert.equal(
    schemaTs(open.schema, ''),
    '{\n  readonly tx: number;\n  readonly [key: string]: JsonValue | undefined;\n}',
    'listed fields plus any others',
  );
});
