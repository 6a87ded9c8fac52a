import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AllowList } from '@cs/runtime/config';
import { Network } from '../network/network.ts';
import { BRIDGE_TO_POOL_HOST } from '../setup/chain.ts';
import { PROGRAMS } from './programs.ts';

test('the pool whitelists the address cs-bridge reaches it from, in the form the shared allow-list parser takes', () => {
  const net = new Network('/tmp/cs-network-test', { basePort: 27400, modelPath: null, minerAddresses: [] });
  const args = PROGRAMS.find((p) => p.name === 'pool')!.args(net);
  assert.ok(args.includes(`-whitelist=${BRIDGE_TO_POOL_HOST}`), args.join(' '));
  // cs-pool reads -whitelist with @cs/runtime's AllowList, as csd reads -rpcallowip.
  assert.ok(new AllowList([BRIDGE_TO_POOL_HOST], 'whitelist').allows(BRIDGE_TO_POOL_HOST));
});
