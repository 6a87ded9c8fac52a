import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeDestination } from '../address/address.ts';
import { encodeWif } from '../address/wif.ts';
import { checkHeaderSolution } from '../pow/equihash.ts';
import { compactToTarget, hashMeetsTarget, targetToCompact } from '../pow/target.ts';
import { checkBlock } from '../validation/block-checks.ts';
import { MAX_MONEY } from '../validation/limits.ts';
import { blockSubsidy } from '../validation/subsidy.ts';
import { NETWORKS, networkByName } from './networks.ts';

const nets = Object.values(NETWORKS);

test('each genesis block carries a valid Equihash solution whose hash meets its bits', () => {
  for (const net of nets) {
    const g = net.genesis;
    assert.equal(checkHeaderSolution(net.equihash, g.header.prefix(), g.header.solution), 'ok', net.name);
    assert.ok(hashMeetsTarget(g.hash, compactToTarget(g.header.bits).target), net.name);
    // Everything but the difficulty ceiling holds for genesis too (main's genesis bits are
    // easier than its powLimit: genesis is fixed by these parameters, never validated).
    checkBlock(g, { ...net, powLimit: compactToTarget(g.header.bits).target });
  }
});

test('genesis hashes are the recorded ones and differ per network', () => {
  assert.equal(NETWORKS.main.genesis.header.hashHex, '38b367deb1d58abd8b119798e6aaa494ab79e922254c118d775aa52a282ca36a');
  assert.equal(NETWORKS.test.genesis.header.hashHex, '43742287a21368f566c39fe46e7c2e190829c498534eaff38f42b3ea8c9b8631');
  assert.equal(NETWORKS.regtest.genesis.header.hashHex, '07a541f8e62b807675c136917113bd274d260be5a36578bbfb60d3dfcd681d68');
  assert.equal(new Set(nets.map((n) => n.genesis.header.hashHex)).size, 3);
  assert.equal(new Set(nets.map((n) => Buffer.from(n.magic).toString('hex'))).size, 3);
});

test('powLimit and its compact form agree', () => {
  for (const net of nets) {
    assert.equal(targetToCompact(net.powLimit), net.powLimitBits, net.name);
    assert.ok(compactToTarget(net.powLimitBits).target <= net.powLimit);
  }
});

test('subsidy halves on schedule and the total stays within MAX_MONEY', () => {
  for (const net of nets) {
    assert.equal(blockSubsidy(0, net), 1_250_000_000n);
    assert.equal(blockSubsidy(net.halvingInterval - 1, net), 1_250_000_000n);
    assert.equal(blockSubsidy(net.halvingInterval, net), 625_000_000n);
    assert.equal(blockSubsidy(net.halvingInterval * 64, net), 0n);
    let total = 0n;
    for (let era = 0; era < 64; era++) total += blockSubsidy(era * net.halvingInterval, net) * BigInt(net.halvingInterval);
    if (net.name === 'main') assert.ok(total <= MAX_MONEY && total > MAX_MONEY - 100_000_000n, String(total));
  }
});

test('address prefixes give the documented leading characters', () => {
  const h = new Uint8Array(20).fill(0x42);
  const first = (net: string, type: 'pubkeyhash' | 'scripthash') => encodeDestination({ type, hash: h }, networkByName(net).address)[0];
  assert.equal(first('main', 'pubkeyhash'), 'C');
  assert.equal(first('main', 'scripthash'), 'S');
  assert.equal(first('test', 'pubkeyhash'), 'c');
  assert.equal(first('regtest', 'scripthash'), 's');
  assert.ok(encodeDestination({ type: 'witness', version: 0, program: h }, NETWORKS.main.address).startsWith('cs1q'));
  assert.ok(encodeDestination({ type: 'witness', version: 0, program: h }, NETWORKS.regtest.address).startsWith('csrt1q'));
  assert.equal(encodeWif({ privateKey: new Uint8Array(32).fill(1), compressed: true }, NETWORKS.main.address)[0], 'Q');
  assert.throws(() => networkByName('mainnet'), /unknown network/);
});
