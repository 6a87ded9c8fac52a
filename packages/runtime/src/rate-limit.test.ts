import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from './rate-limit.ts';

test('a client gets `limit` requests per fixed window, then a fresh budget when it ends', () => {
  let now = 5_000;
  const limiter = new RateLimiter({ limit: 3, windowMs: 60_000, now: () => now });
  assert.deepEqual(
    [1, 2, 3, 4].map(() => limiter.tryTake('a')),
    [true, true, true, false],
  );
  assert.equal(limiter.tryTake('b'), true, 'budgets are per client');
  now += 59_000;
  assert.equal(limiter.tryTake('a'), false);
  assert.equal(limiter.retryAfterSeconds('a'), 1);
  now += 1_000;
  assert.equal(limiter.tryTake('a'), true);
  assert.equal(limiter.retryAfterSeconds('a'), 60);
});

test('limit 0 admits everything and tracks nobody', () => {
  const limiter = new RateLimiter({ limit: 0 });
  for (let i = 0; i < 1000; i++) assert.equal(limiter.tryTake('a'), true);
  assert.equal(limiter.size, 0);
});

test('idle clients are forgotten and the number tracked is capped', () => {
  let now = 0;
  const limiter = new RateLimiter({ limit: 1, windowMs: 1_000, maxClients: 100, now: () => now });
  for (let i = 0; i < 50; i++) limiter.tryTake(`old${i}`);
  assert.equal(limiter.size, 50);
  now = 1_000;
  limiter.tryTake('new');
  assert.equal(limiter.size, 1, 'expired windows are dropped');
  for (let i = 0; i < 500; i++) limiter.tryTake(`flood${i}`);
  assert.equal(limiter.size, 100);
  assert.equal(limiter.tryTake('flood499'), false, 'the newest clients keep their state');
});

test('the limit must be a non-negative integer', () => {
  for (const limit of [-1, 1.5, Number.NaN]) assert.throws(() => new RateLimiter({ limit }));
});
