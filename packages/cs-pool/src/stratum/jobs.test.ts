import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RpcClient } from '@cs/client';
import { REGTEST } from '@cs/consensus';
import { targetToHex } from '@cs/stratum';
import pino from 'pino';
import { JobManager } from './jobs.ts';

/** A getblocktemplate answer of csd's shape on `prev`. */
function template(prev: string, height: number) {
  return {
    version: 4,
    previousblockhash: prev.repeat(64),
    longpollid: `${prev.repeat(64)}0`,
    transactions: [],
    coinbasevalue: 1_250_000_000,
    target: targetToHex(REGTEST.powLimit),
    mintime: 1_795_133_410,
    curtime: 1_795_133_510,
    bits: '200f0f0f',
    height,
    finalsaplingroothash: '00'.repeat(32),
  };
}

/** csd's RPC as the test answers it: each getblocktemplate waits until the test settles it. */
function fakeNode() {
  const pending: { longPoll: boolean; answer: (t: unknown) => void }[] = [];
  const rpc = {
    call: (_method: string, params: [{ longpollid?: string }]) =>
      new Promise((resolve) => pending.push({ longPoll: params[0].longpollid !== undefined, answer: resolve })),
  };
  /** The oldest unanswered request of the kind, taken off the list. */
  const next = async (longPoll: boolean) => {
    for (let i = 0; i < 100; i++) {
      const at = pending.findIndex((p) => p.longPoll === longPoll);
      if (at >= 0) return pending.splice(at, 1)[0];
      await new Promise((r) => setImmediate(r));
    }
    throw new Error(`no ${longPoll ? 'long poll' : 'getblocktemplate'} request`);
  };
  return { rpc: rpc as unknown as RpcClient, next, pending };
}

/** A manager started on block a's template; `emitted` lists each job's block and clean flag. */
async function startedOnA() {
  const node = fakeNode();
  const jobs = new JobManager({
    rpc: node.rpc,
    net: REGTEST,
    poolScript: new Uint8Array([0x51]),
    coinbaseTag: new Uint8Array(0),
    soloFeeBasisPoints: 0,
    zmqHashBlock: null,
    txRefreshMs: 3_600_000,
    log: pino({ level: 'silent' }),
  });
  const emitted: string[] = [];
  jobs.on('job', (clean) => emitted.push(`${jobs.template!.previousblockhash[0]} ${clean}`));
  const started = jobs.start();
  (await node.next(false)).answer(template('a', 10));
  await started;
  return { node, jobs, emitted };
}

test("a template of the previous block answered after the new block's is passed over, and asked for again", async () => {
  const { node, jobs, emitted } = await startedOnA();
  const longPoll = await node.next(true);
  // A request for a template goes out on block a; the long poll then answers with block b's.
  void jobs.refresh();
  const slow = await node.next(false);
  longPoll.answer(template('b', 11));
  await node.next(true);
  assert.equal(jobs.template!.previousblockhash[0], 'b');
  // The slow answer, still on block a, arrives last: no job goes back to a.
  slow.answer(template('a', 10));
  const again = await node.next(false);
  assert.equal(jobs.template!.previousblockhash[0], 'b');
  again.answer(template('b', 11));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(emitted, ['a true', 'b true']);
  jobs.stop();
});

test('a template of a newer block answered to a request sent after the last one taken is taken', async () => {
  const { node, jobs, emitted } = await startedOnA();
  void jobs.refresh();
  (await node.next(false)).answer(template('c', 11));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(emitted, ['a true', 'c true']);
  jobs.stop();
});
