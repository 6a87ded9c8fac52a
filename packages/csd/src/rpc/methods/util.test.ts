import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAIN, REGTEST, p2pkhScript, p2shScript, p2wpkhScript, p2wshScript, scriptToAddress, toHex, witnessProgramScript } from '@cs/consensus';
import { withRpcNode, type RpcTestNode } from '../../../test/rpc-harness.ts';
import { RpcRegistry } from '../registry.ts';
import { registerUtilMethods } from './util.ts';

type Json = Record<string, unknown>;

const withNode = (fn: (node: RpcTestNode) => Promise<void>) => withRpcNode((registry, ctx) => registerUtilMethods(registry, ctx), fn);

test('validateaddress describes every address type of the network', () =>
  withNode(async (node) => {
    const check = async (script: Uint8Array, details: Json) => {
      const address = scriptToAddress(script, REGTEST.address)!;
      assert.deepEqual(await node.call('validateaddress', address), { isvalid: true, address, scriptPubKey: toHex(script), ...details });
    };
    const h20 = new Uint8Array(20).fill(1);
    const h32 = new Uint8Array(32).fill(2);
    await check(p2pkhScript(h20), { isscript: false, iswitness: false });
    await check(p2shScript(h20), { isscript: true, iswitness: false });
    await check(p2wpkhScript(h20), { isscript: false, iswitness: true, witness_version: 0, witness_program: toHex(h20) });
    await check(p2wshScript(h32), { isscript: true, iswitness: true, witness_version: 0, witness_program: toHex(h32) });
    await check(witnessProgramScript(1, h32), { iswitness: true, witness_version: 1, witness_program: toHex(h32) });

    // Bech32 is case-insensitive; the answer gives the canonical lower-case form.
    const upper = scriptToAddress(p2wpkhScript(h20), REGTEST.address)!.toUpperCase();
    assert.equal(((await node.call('validateaddress', upper)) as Json).address, upper.toLowerCase());
  }));

test('validateaddress explains invalid addresses', () =>
  withNode(async (node) => {
    const invalid = async (address: string) => {
      const r = (await node.call('validateaddress', address)) as Json;
      assert.deepEqual(Object.keys(r), ['isvalid', 'error_locations', 'error']);
      assert.equal(r.isvalid, false);
      assert.deepEqual(r.error_locations, []);
      return r.error as string;
    };
    const valid = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(1)), REGTEST.address)!;
    assert.equal(await invalid(`${valid.slice(0, -1)}${valid.endsWith('q') ? 'p' : 'q'}`), 'Invalid Bech32 checksum or characters');
    assert.equal(await invalid(''), 'Invalid address format');
    assert.equal(await invalid(scriptToAddress(p2pkhScript(new Uint8Array(20)), MAIN.address)!), 'Invalid or unsupported Base58-encoded address.');
    assert.match(await invalid('not an address'), /^Invalid/);
    const e = await node.callError('validateaddress', 7);
    assert.equal(e.code, -3);
  }));

test('setmocktime moves the node clock on regtest; 0 returns to the system clock', () =>
  withNode(async (node) => {
    const { clock } = node.ctx;
    assert.equal(await node.call('setmocktime', 1_800_000_000), null);
    assert.equal(clock.now(), 1_800_000_000);
    assert.equal(clock.mocked, true);
    await node.call('setmocktime', 0);
    assert.equal(clock.mocked, false);
    assert.ok(Math.abs(clock.now() - Date.now() / 1000) < 5);

    const range = await node.callError('setmocktime', -1);
    assert.deepEqual([range.code, range.message], [-8, 'Mocktime must be in the range [0, 9223372036], not -1.']);
    const tooLate = await node.callError('setmocktime', 9_223_372_037);
    assert.equal(tooLate.code, -8);

    // Outside regtest the clock cannot be moved.
    const mainnet = new RpcRegistry();
    registerUtilMethods(mainnet, { ...node.ctx, params: MAIN });
    await assert.rejects(mainnet.call('setmocktime', [1], { uri: '/', peer: '127.0.0.1' }), {
      code: -1,
      message: 'setmocktime is for regression testing (-regtest mode) only',
    });
  }));

test('util methods have full help', () =>
  withNode(async (node) => {
    assert.match(node.registry.help('validateaddress'), /^validateaddress "address"\n/);
    assert.match(node.registry.help('setmocktime'), /^setmocktime timestamp\n[\s\S]*Pass 0 to go back to using the system time/);
  }));
