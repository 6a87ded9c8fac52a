import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonSyntaxError, member, parseJson, writeJson } from './json.ts';

test('numbers keep the text they were written with', () => {
  const value = parseJson('{"amount": 0.00000001, "big": 123456789012345678901234567890, "e": 1E+2, "neg": -0}');
  assert.equal(writeJson(value), '{"amount":0.00000001,"big":123456789012345678901234567890,"e":1E+2,"neg":-0}');
});

test('any JSON value parses at the top level, with surrounding whitespace; anything else is refused', () => {
  assert.deepEqual(parseJson(' 12 '), { type: 'number', text: '12' });
  assert.deepEqual(parseJson('true'), { type: 'bool', value: true });
  assert.deepEqual(parseJson('null'), { type: 'null' });
  assert.deepEqual(parseJson('"a\\u00e9\\n"'), { type: 'string', value: 'aé\n' });
  for (const bad of ['', 'abc', '01', '+1', '.5', '1.', '[1,]', '{"a"}', '{"a":1,}', "'x'", '[1] 2', 'nul', '"\t"', '{a:1}']) {
    assert.throws(() => parseJson(bad), JsonSyntaxError, bad);
  }
  assert.throws(() => parseJson('['.repeat(600) + ']'.repeat(600)), JsonSyntaxError, 'nesting is bounded');
});

test('objects keep key order and duplicates; member() reads the last of a repeated key', () => {
  const value = parseJson('{"b":1,"a":2,"b":3}');
  assert.equal(writeJson(value), '{"b":1,"a":2,"b":3}');
  assert.deepEqual(member(value, 'b'), { type: 'number', text: '3' });
  assert.equal(member(value, 'c'), undefined);
  assert.equal(member(parseJson('[1]'), 'a'), undefined);
});

test("pretty output follows UniValue's layout", () => {
  const value = parseJson('{"a":[1,{"x":"y"}],"b":[],"c":{},"d":null,"e":"q\\"\\u007f"}');
  assert.equal(
    writeJson(value, 2),
    [
      '{',
      '  "a": [',
      '    1,',
      '    {',
      '      "x": "y"',
      '    }',
      '  ],',
      '  "b": [',
      '  ],',
      '  "c": {',
      '  },',
      '  "d": null,',
      '  "e": "q\\"\\u007f"',
      '}',
    ].join('\n'),
  );
  assert.equal(writeJson(parseJson('[]'), 2), '[\n]');
});
