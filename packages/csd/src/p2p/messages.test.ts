import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockHeader, DecodeError, REGTEST, Transaction, Writer, requestIdFromUuid } from '@cs/consensus';
import { MAX_OPOI_CONTENT_BYTES } from '../opoi/content.ts';
import { fuzzDecoder } from '../../../consensus/test/fuzz.ts';
import { type Command, decodePayload, encodePayload, type Message } from './messages.ts';
import { MAX_HEADERS_RESULTS, MAX_HEADERS_ENTRY_SIZE, MAX_MESSAGE_SIZE, MSG_WTX, PROTOCOL_VERSION } from './protocol.ts';

const genesis = REGTEST.genesis;
const hash = (b: number) => new Uint8Array(32).fill(b);
const REQUEST_ID = requestIdFromUuid('0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b');

const samples: Message[] = [
  {
    command: 'version',
    payload: {
      version: PROTOCOL_VERSION,
      services: 9n,
      time: 1_795_000_000n,
      addrRecv: { services: 0n, host: '127.0.0.1', port: 36125 },
      addrFrom: { services: 9n, host: '2001:db8::1', port: 8333 },
      nonce: 0xfedcba9876543210n,
      userAgent: '/csd:0.1.0/',
      startHeight: 1234,
      relay: true,
    },
  },
  { command: 'verack' },
  { command: 'wtxidrelay' },
  { command: 'sendheaders' },
  { command: 'getaddr' },
  { command: 'mempool' },
  { command: 'ping', nonce: 1n },
  { command: 'pong', nonce: 0xffffffffffffffffn },
  { command: 'feefilter', feeRate: 1000n },
  { command: 'addr', addresses: [{ time: 1_795_000_000, services: 9n, host: '8.8.8.8', port: 16125 }] },
  { command: 'inv', items: [{ type: MSG_WTX, hash: hash(1) }] },
  { command: 'getdata', items: [{ type: 2, hash: hash(2) }] },
  { command: 'notfound', items: [] },
  { command: 'getheaders', locator: [hash(3), hash(4)], stop: hash(0) },
  { command: 'headers', headers: [genesis.header, genesis.header] },
  { command: 'block', block: genesis, raw: genesis.encode() },
  { command: 'tx', tx: genesis.txs[0] },
  { command: 'opoicontent', requestId: REQUEST_ID, content: Uint8Array.from(Buffer.from('the answer')) },
];

/** Structural equality for messages: bytes, bigints and decoded objects compared by their encoding. */
function normalize(m: Message): unknown {
  return JSON.parse(
    JSON.stringify(m, (_k, v) => {
      if (typeof v === 'bigint') return `${v}n`;
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      if (v instanceof BlockHeader || v instanceof Transaction) return Buffer.from(v.encode()).toString('hex');
      return v;
    }),
  );
}

test('every message survives an encode/decode round trip', () => {
  for (const m of samples) {
    const decoded = decodePayload(m.command, encodePayload(m));
    if (m.command === 'block') assert.equal((decoded as typeof m).block.header.hashHex, m.block.header.hashHex);
    else assert.deepEqual(normalize(decoded), normalize(m), m.command);
  }
});

test('a headers entry is the header, its solution and a zero transaction count', () => {
  const bytes = encodePayload({ command: 'headers', headers: [genesis.header] });
  assert.equal(bytes.length, 1 + genesis.header.encode().length + 1);
  assert.equal(bytes[bytes.length - 1], 0);
  const withTx = Uint8Array.from([...bytes.subarray(0, -1), 1]);
  assert.throws(() => decodePayload('headers', withTx), DecodeError);
});

test('the headers limit fits the message limit with the largest Equihash solution', () => {
  assert.ok(MAX_HEADERS_RESULTS * MAX_HEADERS_ENTRY_SIZE + 3 <= MAX_MESSAGE_SIZE, 'a full headers message exceeds the message limit');
});

test('opoicontent carries the 16-byte request id and at most the content a node stores', () => {
  const content = new Uint8Array(MAX_OPOI_CONTENT_BYTES);
  const bytes = encodePayload({ command: 'opoicontent', requestId: REQUEST_ID, content });
  assert.equal(bytes.length, 16 + 5 + MAX_OPOI_CONTENT_BYTES);
  assert.deepEqual(bytes.subarray(0, 16), REQUEST_ID);
  const over = encodePayload({ command: 'opoicontent', requestId: REQUEST_ID, content: new Uint8Array(MAX_OPOI_CONTENT_BYTES + 1) });
  assert.throws(
    () => decodePayload('opoicontent', over),
    (e: unknown) => e instanceof DecodeError && e.code === 'oversize',
  );
  assert.throws(() => encodePayload({ command: 'opoicontent', requestId: hash(5), content }), RangeError);
});

test('counts beyond the protocol limits are refused before anything is allocated', () => {
  const over = (n: number) => new Writer().compactSize(n).finish();
  for (const [command, limit] of [
    ['inv', 50_000],
    ['getdata', 50_000],
    ['addr', 1000],
    ['headers', MAX_HEADERS_RESULTS],
  ] as const) {
    assert.throws(
      () => decodePayload(command, over(limit + 1)),
      (e: unknown) => e instanceof DecodeError && e.code === 'oversize',
      command,
    );
  }
  const locator = encodePayload({ command: 'getheaders', locator: Array.from({ length: 102 }, () => hash(1)), stop: hash(0) });
  assert.throws(() => decodePayload('getheaders', locator), DecodeError);
  assert.throws(
    () => decodePayload('ping', new Uint8Array(9)),
    (e: unknown) => e instanceof DecodeError && e.code === 'trailing',
  );
});

test('fuzz: every message decoder raises only DecodeError on random and mutated payloads', () => {
  const byCommand = new Map<Command, Uint8Array[]>();
  for (const m of samples) byCommand.set(m.command, [...(byCommand.get(m.command) ?? []), encodePayload(m)]);
  let seed = 1;
  for (const [command, seeds] of byCommand) {
    const r = fuzzDecoder((b) => decodePayload(command, b), seeds, { seed: seed++, ms: 150, maxCases: 20_000 });
    assert.ok(r.cases > 100, `${command}: only ${r.cases} cases`);
    assert.ok(r.rejected > 0, `${command}: nothing was rejected`);
  }
});
