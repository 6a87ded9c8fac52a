// bench/pool.ts's share miners for (a), in a process and session of their own (forked detached):
// miners are not on the pool's host, so their work (decoding the pool's replies) is kept out of
// the CPU the scheduler gives the bench, the floor and the pool. They log in, solve every round's
// shares ahead (none a block, so the job stays current), send the warm-up shares, and hand the
// parent the shares as the floor checks them; then each 'round' pipelines that round's shares on
// every connection at once and answers the wall time until the last reply.
//   parent -> { port, address, connections, perConnection, rounds, warmup } | { round } | 'close'
//   child  -> { record, records: Uint8Array[] } (header ‖ solution per share, per round) | { ms }
import { REGTEST, fromHex } from '@cs/consensus';
import { headerPrefix } from '@cs/stratum';
import { StratumClient } from '../packages/cs-pool/test/stratum-client.ts';

interface Setup {
  readonly port: number;
  readonly address: string;
  readonly connections: number;
  readonly perConnection: number;
  readonly rounds: number;
  readonly warmup: number;
}

const conns: StratumClient[] = [];
let rounds: string[][][][] = [];

const send = (message: unknown) => process.send!(message);

/** Pipelines one list of submits per connection; the wall time (ms) until every reply, all `true`. */
async function submit(lists: string[][][]): Promise<number> {
  const encoded = lists.map((list, i) => conns[i].encodeRequests('mining.submit', list));
  const t0 = performance.now();
  const replies = await Promise.all(encoded.map((e, i) => Promise.all(conns[i].sendEncoded(e))));
  const ms = performance.now() - t0;
  const refused = replies.flat().filter((r) => r.result !== true);
  if (refused.length > 0) throw new Error(`${refused.length} shares refused: ${JSON.stringify(refused[0].error)}`);
  return ms;
}

async function setUp(s: Setup): Promise<void> {
  for (let i = 0; i < s.connections; i++) {
    const c = await StratumClient.connect(s.port);
    await c.subscribe();
    await c.authorize(`${s.address}.bench${i}`);
    conns.push(c);
  }
  const solve = (count: number) =>
    conns.map((c, i) => Array.from({ length: count }, () => c.solve(REGTEST.equihash, false, `${s.address}.bench${i}`).params));
  const warmup = solve(s.warmup);
  rounds = Array.from({ length: s.rounds }, () => solve(s.perConnection));
  await submit(warmup);
  const records = rounds.map((round) =>
    Buffer.concat(
      round.flatMap((list, i) => {
        const c = conns[i];
        return list.map((p) => Buffer.concat([headerPrefix(c.job!.headerInput, c.job!.time, c.nonce1, fromHex(p[3])), fromHex(p[4]).subarray(1)]));
      }),
    ),
  );
  send({ record: records[0].length / (s.connections * s.perConnection), records });
}

process.on('message', (m: Setup | { round: number } | 'close') => {
  if (m === 'close') {
    for (const c of conns) c.close();
    process.disconnect();
  } else if ('round' in m) void submit(rounds[m.round]).then((ms) => send({ ms }));
  else void setUp(m);
});
