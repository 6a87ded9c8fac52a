import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AmountError, amountFromValue } from './value.ts';

type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

function rejects(value: JsonValue | undefined, message: string): void {
  assert.throws(
    () => amountFromValue(value),
    (e: unknown) => e instanceof AmountError && e.message === message,
    `${JSON.stringify(value)} should fail with ${message}`,
  );
}

test('amounts in coins become base units, from numbers or numeric strings', () => {
  const cases: [JsonValue, bigint][] = [
    [0, 0n],
    [1, 100_000_000n],
    [0.1, 10_000_000n],
    [0.00000001, 1n],
    ['0.00000001', 1n],
    ['1e-8', 1n],
    ['1.5E+1', 1_500_000_000n],
    ['0.100000000', 10_000_000n], // trailing zeros beyond 8 decimals change nothing
    [20999999.9999999, 2_099_999_999_999_990n],
    ['20999999.99999999', 2_099_999_999_999_999n],
    ['21000000', 2_100_000_000_000_000n],
    ['-0', 0n],
  ];
  for (const [value, units] of cases) assert.equal(amountFromValue(value), units, JSON.stringify(value));
});

test("malformed, too precise, negative or too large amounts are -3 with Core's messages", () => {
  rejects(null, 'Amount is not a number or string');
  rejects(undefined, 'Amount is not a number or string');
  rejects(true, 'Amount is not a number or string');
  rejects([1], 'Amount is not a number or string');
  for (const text of ['', 'abc', '1.', '.5', '01', '+1', '1e', '0x10', ' 1', '1,5', '0.000000001', 1e-9, '1e300']) rejects(text, 'Invalid amount');
  rejects(-0.00000001, 'Amount out of range');
  rejects('-1', 'Amount out of range');
  rejects('21000000.00000001', 'Amount out of range');
});
