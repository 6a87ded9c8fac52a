import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DecodeError, REGTEST } from '@cs/consensus';
import { ChainDatabase } from '../storage/database.ts';
import { coinKey, encodeCoin } from './coins.ts';
import { HEADER_BYTES, hashState, readSnapshot, writeSnapshot } from './snapshot-format.ts';

const dir = mkdtempSync(join(tmpdir(), 'cs-snapshot-format-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const db = ChainDatabase.open(join(dir, 'db'));
const coins = Array.from({ length: 300 }, (_, i) => ({
  key: coinKey({ txid: new Uint8Array(32).fill(i % 256), vout: i }),
  value: encodeCoin({ value: BigInt(i + 1) * 1000n, scriptPubKey: new Uint8Array(22).fill(i % 7), height: i, coinbase: i % 2 === 0 }),
}));
db.write(() => {
  for (const c of coins) db.tables.coins.put(c.key, c.value);
  db.tables.opoistake.put(Buffer.from('aa'.repeat(21), 'hex'), Buffer.from('a stake record'));
});
const header = { genesis: REGTEST.genesis.header.hashHex, baseHash: 'ab'.repeat(32), baseHeight: 7, chainTxCount: 9 };
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a written snapshot reads back with its header, its records and the hash of the state it came from', async () => {
  const path = join(dir, 'a.dat');
  const written = await writeSnapshot(path, header, db.stateTables(), nextTurn);
  assert.deepEqual(written.header, { ...header, coins: 300, records: 301 });
  assert.equal(written.hash, hashState(db.stateTables()));
  const file = await readSnapshot(path);
  assert.deepEqual(file.header, written.header);
  assert.equal(file.hash, written.hash);
  const records = [...file.records()];
  assert.equal(records.length, 301);
  // Table by table in STATE_TABLES order (coins first, opoistake is the fourth), keys in order.
  assert.deepEqual(
    records.slice(0, 300).map((r) => Buffer.from(r.key).toString('hex')),
    coins.map((c) => c.key.toString('hex')).sort(),
  );
  assert.deepEqual([records[300].table, Buffer.from(records[300].value).toString()], [3, 'a stake record']);
  await assert.rejects(writeSnapshot(path, header, db.stateTables(), nextTurn), /EEXIST/);
});

test('the hash follows the content: one byte of one coin changes it', () => {
  const before = hashState(db.stateTables());
  const changed = Buffer.from(coins[5].value);
  changed[changed.length - 1] ^= 1;
  db.write(() => db.tables.coins.put(coins[5].key, changed));
  assert.notEqual(hashState(db.stateTables()), before);
  db.write(() => db.tables.coins.put(coins[5].key, coins[5].value));
  assert.equal(hashState(db.stateTables()), before);
});

test('a file that is no snapshot, a truncated one and one whose counts disagree are refused with a DecodeError', async () => {
  const good = readFileSync(join(dir, 'a.dat'));
  const cases: [string, Buffer, RegExp][] = [
    [
      'text',
      Buffer.from('hello, not a snapshot at all, but long enough to hold a header of one hundred and twenty-six bytes ...........'),
      /bad magic/,
    ],
    ['truncated', good.subarray(0, good.length - 3), /unexpected end/],
    ['short', good.subarray(0, HEADER_BYTES - 1), /bad magic/],
    ['counts', Buffer.concat([good.subarray(0, HEADER_BYTES - 8), Buffer.alloc(8, 0), good.subarray(HEADER_BYTES)]), /header says 300 in 0/],
  ];
  for (const [name, bytes, message] of cases) {
    const path = join(dir, `${name}.dat`);
    writeFileSync(path, bytes);
    await assert.rejects(
      (async () => [...(await readSnapshot(path)).records()])(),
      (e: unknown) => e instanceof DecodeError && message.test(e.message),
      name,
    );
  }
});
