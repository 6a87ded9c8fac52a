import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError, type Request } from './protocol.ts';
import { SubscriptionTable } from './subscriptions.ts';

const watch = (n: number, action: Request['action'] = 'subscribe'): Request => ({
  action,
  channel: 'address-tx',
  address: { address: `addr${n}`, script: `script${n}` },
});

function codeOf(fn: () => void): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return 'ok';
}

test('channel subscriptions are sets: subscribing twice is harmless, unsubscribing what is not there is an error', () => {
  const t = new SubscriptionTable<string>(10);
  t.apply('a', { action: 'subscribe', channel: 'new-blocks' });
  t.apply('a', { action: 'subscribe', channel: 'new-blocks' });
  t.apply('b', { action: 'subscribe', channel: 'mempool' });
  assert.deepEqual([...t.newBlocks], ['a']);
  assert.deepEqual([...t.mempool], ['b']);
  t.apply('a', { action: 'unsubscribe', channel: 'new-blocks' });
  assert.equal(t.newBlocks.size, 0);
  assert.equal(
    codeOf(() => t.apply('a', { action: 'unsubscribe', channel: 'new-blocks' })),
    'not-subscribed',
  );
});

test('address watchers are indexed by script and shared between clients', () => {
  const t = new SubscriptionTable<string>(10);
  assert.equal(t.watchesAddresses, false);
  t.apply('a', watch(1));
  t.apply('b', watch(1));
  t.apply('b', watch(2));
  assert.equal(t.watchesAddresses, true);
  assert.deepEqual(t.watchers('script1')?.address, 'addr1');
  assert.deepEqual([...t.watchers('script1')!.clients], ['a', 'b']);
  t.apply('a', watch(1, 'unsubscribe'));
  assert.deepEqual([...t.watchers('script1')!.clients], ['b']);
  assert.equal(
    codeOf(() => t.apply('a', watch(1, 'unsubscribe'))),
    'not-subscribed',
  );
  t.remove('b');
  assert.equal(t.watchers('script1'), undefined);
  assert.equal(t.watchers('script2'), undefined);
  assert.equal(t.watchesAddresses, false);
});

test('a client watches at most maxAddressesPerClient addresses; re-subscribing one does not count', () => {
  const t = new SubscriptionTable<string>(2);
  t.apply('a', watch(1));
  t.apply('a', watch(2));
  t.apply('a', watch(2));
  assert.equal(
    codeOf(() => t.apply('a', watch(3))),
    'too-many-subscriptions',
  );
  assert.equal(t.watchers('script3'), undefined);
  // Others have their own budget, and freeing one makes room.
  t.apply('b', watch(3));
  t.apply('a', watch(1, 'unsubscribe'));
  t.apply('a', watch(3));
  assert.deepEqual([...t.watchers('script3')!.clients], ['b', 'a']);
});

const opoi = (requestId: string | null, action: Request['action'] = 'subscribe'): Request => ({ action, channel: 'opoi', requestId });

test('opoi steps reach the unfiltered subscribers and the watchers of their request, each once', () => {
  const t = new SubscriptionTable<string>(10, 2);
  assert.equal(t.watchesOpoi, false);
  t.apply('all', opoi(null));
  t.apply('one', opoi('r1'));
  t.apply('both', opoi(null));
  t.apply('both', opoi('r1'));
  t.apply('both', opoi('r2'));
  assert.equal(t.watchesOpoi, true);
  assert.deepEqual([...t.opoiRecipients('r1')].sort(), ['all', 'both', 'one']);
  assert.deepEqual([...t.opoiRecipients('r2')].sort(), ['all', 'both']);
  // Stake steps have no request: only the unfiltered get them.
  assert.deepEqual([...t.opoiRecipients(null)].sort(), ['all', 'both']);
  assert.equal(
    codeOf(() => t.apply('both', opoi('r3'))),
    'too-many-subscriptions',
  );
  t.apply('both', opoi('r2'));
  t.apply('one', opoi('r1', 'unsubscribe'));
  assert.equal(
    codeOf(() => t.apply('one', opoi('r1', 'unsubscribe'))),
    'not-subscribed',
  );
  assert.equal(
    codeOf(() => t.apply('one', opoi(null, 'unsubscribe'))),
    'not-subscribed',
  );
  t.apply('all', opoi(null, 'unsubscribe'));
  assert.deepEqual([...t.opoiRecipients('r1')], ['both']);
  t.remove('both');
  assert.equal(t.watchesOpoi, false);
  assert.equal(t.opoiRecipients('r1').size, 0);
});

test('remove forgets every subscription of a client', () => {
  const t = new SubscriptionTable<string>(10);
  t.apply('a', { action: 'subscribe', channel: 'new-blocks' });
  t.apply('a', { action: 'subscribe', channel: 'mempool' });
  t.apply('a', watch(1));
  t.apply('a', opoi(null));
  t.apply('a', opoi('r1'));
  t.remove('a');
  assert.equal(t.newBlocks.size + t.mempool.size, 0);
  assert.equal(t.watchesAddresses, false);
  assert.equal(t.watchesOpoi, false);
  t.remove('a');
});
