// The README's walk-throughs, run line by line as written against a node started by `npm start`
// (csd -regtest with the default data directory, here under a temporary HOME whose cs.conf gives
// free loopback ports). The lines come from README.md itself, so the text and the test cannot drift.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { freePort } from '../packages/csd/test/daemon.ts';
import { commandLines, ROOT, shellBlocks, Walkthrough } from './walkthrough-harness.ts';

type Json = Record<string, unknown>;

/** Starts `npm start` and waits for its RPC (cs-cli -rpcwait, through the cookie or cs.conf's credentials). */
async function npmStart(w: Walkthrough) {
  const node = w.background('npm', ['start']);
  await w.query('node packages/csd/bin/cs-cli.js -regtest -rpcwait -rpcwaittimeout=120 getblockcount');
  return node;
}

async function regtestConf(extra = ''): Promise<string> {
  return `[regtest]\nrpcport=${await freePort()}\nport=${await freePort()}\nbind=127.0.0.1\n${extra}`;
}

test('npm start passes the fallback fee the walk-throughs need', () => {
  const start = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts.start as string;
  assert.match(start, /^csd -regtest -fallbackfee=0\.0002$/);
  assert.match(readFileSync(`${ROOT}/README.md`, 'utf8'), /`npm start` runs `csd -regtest -fallbackfee=0\.0002`/);
});

test('README "Running a node": cs-cli on the same machine with the cookie, then curl with rpcuser/rpcpassword', async () => {
  const [cliBlock, curlBlock] = shellBlocks('README.md', 'Running a node');
  const w = new Walkthrough();
  try {
    w.conf(await regtestConf());
    let node = await npmStart(w);
    const lines = commandLines(cliBlock);
    assert.deepEqual(
      lines.map((l) => l.split(' ')[3]),
      ['getblockchaininfo', 'generatetoaddress', 'getblocktemplate', 'stop'],
    );
    for (const line of lines) await w.run(line);
    assert.equal((JSON.parse(w.outputOf('getblockchaininfo')) as Json).chain, 'regtest');
    assert.equal((JSON.parse(w.outputOf('generatetoaddress')) as string[]).length, 101);
    assert.equal((JSON.parse(w.outputOf('getblocktemplate')) as Json).height, 102);
    await w.exited(node);

    // "(with rpcuser=alice and rpcpassword=secret set)": in cs.conf, and the request to this node's port.
    const conf = await regtestConf('rpcuser=alice\nrpcpassword=secret\n');
    w.conf(conf);
    node = await npmStart(w);
    const port = /rpcport=(\d+)/.exec(conf)![1];
    const [curl] = commandLines(curlBlock);
    assert.match(curl, /http:\/\/127\.0\.0\.1:16180\//);
    const answer = JSON.parse(await w.run(curl.replace('127.0.0.1:16180', `127.0.0.1:${port}`))) as Json;
    assert.deepEqual(answer, { result: 101, error: null, id: '1' });
    await w.query('node packages/csd/bin/cs-cli.js -regtest stop');
    await w.exited(node);
  } finally {
    w.cleanup();
  }
});

test('README "Paying for an inference on chain": stake, request, commit, reveal, content and payout on a fresh node', async () => {
  const section = 'Paying for an inference on chain (OPoI)';
  const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
  const alias = /`alias cli='([^']+)'`/.exec(readme)![1];
  const w = new Walkthrough(`cli() { ${alias} "$@"; }`);
  try {
    w.conf(await regtestConf());
    const node = await npmStart(w);
    const commit = () => JSON.parse(w.outputOf('submitopoiresponsecommit')) as Json;
    const fill = {
      // "a confirmed coin of $MINER": what the comment on that line tells the reader to run.
      '<txid>': async () => confirmedCoin(w).then((c) => c.txid as string),
      '<vout>': async () => confirmedCoin(w).then((c) => String(c.vout)),
      '<commitment>': () => commit().commitment as string,
      '<nonce_hex>': () => commit().nonce_hex as string,
    };
    const lines = commandLines(shellBlocks('README.md', section)[0]);
    for (const line of lines) {
      await w.run(line, fill);
      if (line.startsWith('cli sendtoaddress $MINER 5')) await secondSendSpendsACoinbase(w);
    }
    const id = w.variable('ID');
    // The last line printed the payout and the request; asked again, both answer as one JSON value each.
    const request = JSON.parse(await w.query('cli getopoirequest $ID')) as Json;
    assert.equal(request.request_id, id);
    assert.equal(request.status, 'FULFILLED');
    assert.equal(request.winner, w.variable('MINER'));
    const payout = JSON.parse(await w.query('cli claimopoipayout $ID')) as Json;
    assert.deepEqual([payout.kind, payout.existing], ['winner', true]);
    await w.query('cli stop');
    await w.exited(node);
  } finally {
    w.cleanup();
  }
});

async function confirmedCoin(w: Walkthrough): Promise<Json> {
  const coins = JSON.parse(await w.query(`cli listunspent 1 9999999 "[\\"$MINER\\"]"`)) as Json[];
  assert.ok(coins.length > 0, '$MINER has no confirmed coin to stake');
  return coins[0];
}

/**
 * The scenario: after `sendtoaddress $MINER 5; sendtoaddress $REQ 1` the second send spends
 * a mature coinbase (a confirmed coin), not the first send's unconfirmed output at $MINER.
 */
async function secondSendSpendsACoinbase(w: Walkthrough): Promise<void> {
  // The line also mines a block (-generate prints its address and hash in JSON): the txids are the bare lines.
  const out = w.results.at(-1)!.stdout;
  const [first, second] = out.match(/^[0-9a-f]{64}$/gm) ?? assert.fail(`no txids in: ${out}`);
  const tx = JSON.parse(await w.query(`cli getrawtransaction ${second} 1`)) as { vin: { txid: string }[] };
  for (const input of tx.vin) {
    assert.notEqual(input.txid, first);
    const parent = JSON.parse(await w.query(`cli getrawtransaction ${input.txid} 1`)) as { vin: Json[] };
    assert.ok('coinbase' in parent.vin[0], `the 1-coin send spends ${input.txid}, which is no coinbase`);
  }
}
