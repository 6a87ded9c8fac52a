import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amountFromValue } from '@cs/runtime/amount';
import { RpcError } from './errors.ts';
import type { JsonValue } from '../format/json-value.ts';
import { RpcRegistry, type RpcMethodDefinition } from './registry.ts';
import type { ParamSpec } from './params.ts';

const ctx = { uri: '/', peer: '127.0.0.1' };

function method<const P extends readonly ParamSpec[]>(overrides: Partial<RpcMethodDefinition<P>> & { readonly params: P }): RpcMethodDefinition<P> {
  return {
    name: 'm',
    category: 'Util',
    description: 'A method.',
    result: 'null',
    examples: [{ args: [] }],
    handler: async () => null,
    ...overrides,
  };
}

async function callError(registry: RpcRegistry, name: string, params: readonly JsonValue[] | { readonly [k: string]: JsonValue }): Promise<RpcError> {
  try {
    await registry.call(name, params, ctx);
  } catch (e) {
    assert.ok(e instanceof RpcError, String(e));
    return e;
  }
  assert.fail(`${name} should have failed`);
}

test('handlers get validated arguments by position, defaults filled in', async () => {
  const registry = new RpcRegistry();
  registry.register(
    method({
      name: 'take',
      params: [
        { name: 'height', type: 'integer', description: 'h' },
        { name: 'data', type: 'hex', description: 'd' },
        { name: 'fee', type: 'amount', default: '0.0001', description: 'f' },
        { name: 'verbose', type: 'boolean', optional: true, description: 'v' },
        { name: 'extra', type: 'any', optional: true, description: 'x' },
      ],
      handler: async ([height, data, fee, verbose, extra]) => ({
        height,
        data,
        fee: String(fee),
        verbose: verbose ?? 'unset',
        extra: extra ?? 'unset',
      }),
    }),
  );
  assert.deepEqual(await registry.call('take', [7, 'aBcd'], ctx), { height: 7, data: 'aBcd', fee: '10000', verbose: 'unset', extra: 'unset' });
  assert.deepEqual(await registry.call('take', [7, '00', null, false, [1]], ctx), {
    height: 7,
    data: '00',
    fee: '10000',
    verbose: false,
    extra: [1],
  });
  assert.deepEqual(await registry.call('take', { data: 'ff', height: 1, verbose: true }, ctx), {
    height: 1,
    data: 'ff',
    fee: '10000',
    verbose: true,
    extra: 'unset',
  });
});

test("argument errors carry Core's codes", async () => {
  const registry = new RpcRegistry();
  registry.register(
    method({
      name: 'take',
      params: [
        { name: 'height', type: 'integer', description: 'h' },
        { name: 'data', type: 'hex', optional: true, description: 'd' },
      ],
    }),
  );
  const expect = async (params: readonly JsonValue[] | { readonly [k: string]: JsonValue }, code: number, message: string | RegExp) => {
    const e = await callError(registry, 'take', params);
    assert.equal(e.code, code, JSON.stringify(params));
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
  };
  await expect([], -1, /^take height \( "data" \)\n\nA method\.\n/);
  await expect([1, 'aa', 3], -1, /^take height/);
  await expect({ data: 'aa' }, -3, /"Position 1 \(height\)": "JSON value of type null is not of expected type number"/);
  await expect([1.5], -1, 'JSON integer out of range');
  await expect([2 ** 53], -1, 'JSON integer out of range');
  await expect([1, 'abc'], -8, "data must be hexadecimal string (not 'abc')");
  await expect([1, ''], -8, "data must be hexadecimal string (not '')");
  await expect([1, 'zz'], -8, "data must be hexadecimal string (not 'zz')");
  await expect({ height: 1, nope: 2 }, -8, 'Unknown named parameter nope');
  await expect({ height: 1, args: 5 }, -8, 'Unknown named parameter args');
  await expect({ args: [1], height: 2 }, -8, 'Parameter height specified twice both as positional and named argument');
});

test('unknown methods are -32601; warmup answers -28 first, except for allowed methods', async () => {
  const registry = new RpcRegistry();
  registry.register(method({ name: 'early', params: [], allowedInWarmup: true }));
  registry.register(method({ name: 'late', params: [] }));
  assert.equal((await callError(registry, 'nosuch', [])).code, -32601);
  registry.warmup.set('Rewinding blocks…');
  const e = await callError(registry, 'late', []);
  assert.equal(e.code, -28);
  assert.equal(e.message, 'Rewinding blocks…');
  assert.equal((await callError(registry, 'nosuch', [])).code, -28);
  assert.equal(await registry.call('early', [], ctx), null);
  registry.warmup.finish();
  assert.equal(await registry.call('late', [], ctx), null);
});

test('registration refuses incomplete help and malformed specs', () => {
  const registry = new RpcRegistry();
  registry.register(method({ name: 'ok', params: [] }));
  const bad: [string, () => void][] = [
    ['twice', () => registry.register(method({ name: 'ok', params: [] }))],
    ['name', () => registry.register(method({ name: 'GetInfo', params: [] }))],
    ['description', () => registry.register(method({ name: 'a', description: ' ', params: [] }))],
    ['result', () => registry.register(method({ name: 'b', result: '', params: [] }))],
    ['examples', () => registry.register(method({ name: 'c', examples: [], params: [] }))],
    ['param description', () => registry.register(method({ name: 'd', params: [{ name: 'x', type: 'number', description: '' }] }))],
    ['param name', () => registry.register(method({ name: 'e', params: [{ name: 'X-y', type: 'number', description: 'x' }] }))],
    [
      'param twice',
      () =>
        registry.register(
          method({
            name: 'f',
            params: [
              { name: 'x', type: 'number', description: 'x' },
              { name: 'x', type: 'number', description: 'x' },
            ],
          }),
        ),
    ],
    [
      'required after optional',
      () =>
        registry.register(
          method({
            name: 'g',
            params: [
              { name: 'x', type: 'number', optional: true, description: 'x' },
              { name: 'y', type: 'number', description: 'y' },
            ],
          }),
        ),
    ],
    [
      'default of the wrong type',
      () => registry.register(method({ name: 'h', params: [{ name: 'x', type: 'number', default: 'one', description: 'x' }] })),
    ],
    ['invalid default', () => registry.register(method({ name: 'i', params: [{ name: 'x', type: 'amount', default: -1, description: 'x' }] }))],
  ];
  for (const [what, register] of bad) assert.throws(register, Error, what);
  assert.match(registry.help('ok'), /^ok\n/);
  assert.equal(registry.help('h'), 'help: unknown command: h', 'a refused method is not half-registered');
});

test('getrpcinfo data: calls in progress are listed while they run', async () => {
  const registry = new RpcRegistry();
  let inside: unknown;
  registry.register(
    method({
      name: 'look',
      params: [],
      handler: async () => {
        inside = registry.activeCommands();
        return null;
      },
    }),
  );
  await registry.call('look', [], ctx);
  assert.deepEqual(
    (inside as { method: string }[]).map((c) => c.method),
    ['look'],
  );
  assert.deepEqual(registry.activeCommands(), []);
});

test("a bad amount, as an argument or parsed by a handler, is RPC_TYPE_ERROR with Core's message", async () => {
  const registry = new RpcRegistry();
  registry.register(method({ name: 'pay', params: [{ name: 'amount', type: 'amount', description: 'a' }] }));
  registry.register(
    method({
      name: 'payobject',
      params: [{ name: 'options', type: 'object', description: 'o' }],
      handler: async ([options]) => String(amountFromValue((options as { amount?: JsonValue }).amount)),
    }),
  );
  const cases: [JsonValue, string][] = [
    ['x', 'Invalid amount'],
    [true, 'Amount is not a number or string'],
    [-1, 'Amount out of range'],
    [0.000000001, 'Invalid amount'],
  ];
  for (const [amount, message] of cases) {
    for (const [name, params] of [
      ['pay', [amount]],
      ['payobject', [{ amount }]],
    ] as const) {
      const error = await callError(registry, name, params);
      assert.equal(error.code, -3, `${name} ${JSON.stringify(amount)}`);
      assert.equal(error.message, message, `${name} ${JSON.stringify(amount)}`);
    }
  }
});
