import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readOptions } from '../../../cs-pool/src/node/config.ts';
import { Network } from '../network/network.ts';
import { BRIDGE_TO_POOL_HOST } from '../setup/chain.ts';
import { PROGRAMS } from './programs.ts';

test('the pool whitelists the address cs-bridge reaches it from, and cs-pool reads the option as given', () => {
  const net = new Network('/tmp/cs-network-test', { basePort: 27400, modelPath: null, minerAddresses: [] });
  const args = PROGRAMS.find((p) => p.name === 'pool')!.args(net);
  assert.ok(args.includes(`-whitelist=${BRIDGE_TO_POOL_HOST}`), args.join(' '));
  assert.deepEqual(readOptions(args).options.values.whitelist, [BRIDGE_TO_POOL_HOST]);
});
