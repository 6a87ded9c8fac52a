/**
 * Payloads of the peer-to-peer messages: one typed value per command, encoded and decoded here
 * and nowhere else. Decoding is strict (every length bounded before allocation, no trailing
 * bytes), so a malformed payload ends in a DecodeError that the peer is punished for.
 */
import { Block, BlockHeader, DecodeError, REQUEST_ID_BYTES, Reader, Transaction, Writer } from '@cs/consensus';
import { MAX_OPOI_CONTENT_BYTES } from '../opoi/content.ts';
import { readNetAddress, writeNetAddress, type NetAddress } from './netaddr.ts';
import { MAX_ADDR_TO_SEND, MAX_HEADERS_RESULTS, MAX_INV_SIZE, MAX_LOCATOR_SIZE, MAX_USER_AGENT_LENGTH, PROTOCOL_VERSION } from './protocol.ts';

export interface VersionPayload {
  readonly version: number;
  readonly services: bigint;
  readonly time: bigint;
  readonly addrRecv: NetAddress;
  readonly addrFrom: NetAddress;
  readonly nonce: bigint;
  readonly userAgent: string;
  readonly startHeight: number;
  /** BIP37's fRelay: false asks not to be sent transactions. */
  readonly relay: boolean;
}

export interface InvItem {
  readonly type: number;
  /** Internal byte order. */
  readonly hash: Uint8Array;
}

export interface TimedAddress extends NetAddress {
  /** Last seen, Unix seconds. */
  readonly time: number;
}

export type Message =
  | { readonly command: 'version'; readonly payload: VersionPayload }
  | { readonly command: 'verack' | 'sendheaders' | 'wtxidrelay' | 'getaddr' | 'mempool' }
  | { readonly command: 'ping' | 'pong'; readonly nonce: bigint }
  /** BIP133: satoshis per 1000 virtual bytes. */
  | { readonly command: 'feefilter'; readonly feeRate: bigint }
  | { readonly command: 'addr'; readonly addresses: readonly TimedAddress[] }
  | { readonly command: 'inv' | 'getdata' | 'notfound'; readonly items: readonly InvItem[] }
  | { readonly command: 'getheaders'; readonly locator: readonly Uint8Array[]; readonly stop: Uint8Array }
  | { readonly command: 'headers'; readonly headers: readonly BlockHeader[] }
  | { readonly command: 'block'; readonly block: Block; readonly raw: Uint8Array }
  | { readonly command: 'tx'; readonly tx: Transaction }
  /** Published OPoI content: the answer to request `requestId` (a UUID's 16 bytes), relayed once the receiver accepts it. */
  | { readonly command: 'opoicontent'; readonly requestId: Uint8Array; readonly content: Uint8Array };

export type Command = Message['command'];

const EMPTY = new Set<string>(['verack', 'sendheaders', 'wtxidrelay', 'getaddr', 'mempool']);

/** The commands we understand; anything else is ignored (as Core), never punished. */
export function isKnownCommand(command: string): command is Command {
  return (
    EMPTY.has(command) ||
    ['version', 'ping', 'pong', 'feefilter', 'addr', 'inv', 'getdata', 'notfound', 'getheaders', 'headers', 'block', 'tx', 'opoicontent'].includes(
      command,
    )
  );
}

export function encodePayload(m: Message): Uint8Array {
  const w = new Writer(64);
  switch (m.command) {
    case 'version': {
      const p = m.payload;
      w.i32le(p.version).u64le(p.services).i64le(p.time);
      writeNetAddress(w, p.addrRecv);
      writeNetAddress(w, p.addrFrom);
      w.u64le(p.nonce)
        .varBytes(Buffer.from(p.userAgent, 'utf8'))
        .i32le(p.startHeight)
        .u8(p.relay ? 1 : 0);
      break;
    }
    case 'verack':
    case 'sendheaders':
    case 'wtxidrelay':
    case 'getaddr':
    case 'mempool':
      break;
    case 'ping':
    case 'pong':
      w.u64le(m.nonce);
      break;
    case 'feefilter':
      w.i64le(m.feeRate);
      break;
    case 'addr':
      w.compactSize(m.addresses.length);
      for (const a of m.addresses) {
        w.u32le(a.time);
        writeNetAddress(w, a);
      }
      break;
    case 'inv':
    case 'getdata':
    case 'notfound':
      w.compactSize(m.items.length);
      for (const item of m.items) w.u32le(item.type).bytes(item.hash);
      break;
    case 'getheaders':
      w.u32le(PROTOCOL_VERSION).compactSize(m.locator.length);
      for (const h of m.locator) w.bytes(h);
      w.bytes(m.stop);
      break;
    case 'headers':
      // Each entry is a block with no transactions: the header, then a zero tx count.
      w.compactSize(m.headers.length);
      for (const h of m.headers) h.write(w).compactSize(0);
      break;
    case 'block':
      return m.raw;
    case 'tx':
      return m.tx.encode(true);
    case 'opoicontent':
      // The id has no length prefix: any other length would shift the content for the receiver.
      if (m.requestId.length !== REQUEST_ID_BYTES) throw new RangeError(`an OPoI request id is ${REQUEST_ID_BYTES} bytes`);
      w.bytes(m.requestId).varBytes(m.content);
      break;
  }
  return w.finish();
}

/** Decodes the payload of a known command; throws DecodeError on anything malformed or over a limit. */
export function decodePayload(command: Command, payload: Uint8Array): Message {
  const r = new Reader(payload);
  const m = read(command, r);
  r.end(`${command} message`);
  return m;
}

function read(command: Command, r: Reader): Message {
  switch (command) {
    case 'version': {
      const version = r.i32le();
      const services = r.u64le();
      const time = r.i64le();
      const addrRecv = readNetAddress(r);
      const addrFrom = readNetAddress(r);
      const nonce = r.u64le();
      const userAgent = Buffer.from(r.varBytes(MAX_USER_AGENT_LENGTH, 'user agent')).toString('utf8');
      const startHeight = r.i32le();
      // fRelay is optional in old versions; we require the field (every peer we accept is 70016).
      const relay = r.u8() !== 0;
      return { command, payload: { version, services, time, addrRecv, addrFrom, nonce, userAgent, startHeight, relay } };
    }
    case 'verack':
    case 'sendheaders':
    case 'wtxidrelay':
    case 'getaddr':
    case 'mempool':
      return { command };
    case 'ping':
    case 'pong':
      return { command, nonce: r.u64le() };
    case 'feefilter':
      return { command, feeRate: r.i64le() };
    case 'addr': {
      const n = r.compactSize(MAX_ADDR_TO_SEND);
      const addresses: TimedAddress[] = [];
      for (let i = 0; i < n; i++) {
        const time = r.u32le();
        addresses.push({ time, ...readNetAddress(r) });
      }
      return { command, addresses };
    }
    case 'inv':
    case 'getdata':
    case 'notfound': {
      const n = r.compactSize(MAX_INV_SIZE);
      const items: InvItem[] = [];
      for (let i = 0; i < n; i++) items.push({ type: r.u32le(), hash: r.bytes(32).slice() });
      return { command, items };
    }
    case 'getheaders': {
      r.u32le();
      const n = r.compactSize(MAX_LOCATOR_SIZE);
      const locator: Uint8Array[] = [];
      for (let i = 0; i < n; i++) locator.push(r.bytes(32).slice());
      return { command, locator, stop: r.bytes(32).slice() };
    }
    case 'headers': {
      const n = r.compactSize(MAX_HEADERS_RESULTS);
      const headers: BlockHeader[] = [];
      for (let i = 0; i < n; i++) {
        headers.push(BlockHeader.read(r));
        if (r.compactSize() !== 0) throw new DecodeError('invalid', 'headers entry with transactions');
      }
      return { command, headers };
    }
    case 'block': {
      const raw = r.bytes(r.remaining).slice();
      return { command, block: Block.decode(raw), raw };
    }
    case 'tx':
      return { command, tx: Transaction.read(r, { allowWitness: true }) };
    case 'opoicontent':
      return { command, requestId: r.bytes(REQUEST_ID_BYTES).slice(), content: r.varBytes(MAX_OPOI_CONTENT_BYTES, 'content').slice() };
  }
}
