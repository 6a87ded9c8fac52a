import { isIP } from 'node:net';
import type { Reader, Writer } from '@cs/consensus';
import { ipv6Bytes } from '../rpc/allowip.ts';

/** A peer address as the protocol carries it: services, an IPv6 (or IPv4-mapped) address, a port. */
export interface NetAddress {
  readonly services: bigint;
  /** Textual form: dotted IPv4 for mapped addresses, IPv6 otherwise. */
  readonly host: string;
  readonly port: number;
}

const V4_MAPPED_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff);

/** 16 bytes of an IP address (IPv4 as ::ffff:a.b.c.d); throws on anything that is not an IP literal. */
export function ipToBytes(host: string): Uint8Array {
  const out = new Uint8Array(16);
  const version = isIP(host);
  if (version === 4) {
    out.set(V4_MAPPED_PREFIX);
    host.split('.').forEach((octet, i) => {
      out[12 + i] = Number(octet);
    });
    return out;
  }
  if (version !== 6) throw new Error(`not an IP address: ${host}`);
  return ipv6Bytes(host);
}

export function bytesToIp(b: Uint8Array): string {
  if (V4_MAPPED_PREFIX.every((v, i) => b[i] === v)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] << 8) | b[i + 1]).toString(16));
  // The URL parser writes IPv6 in its canonical compressed form (RFC 5952).
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

/** host:port as Core prints it ([v6]:port for IPv6). */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Core's CAddress without the time (as in `version`): services, 16-byte IP, big-endian port. */
export function writeNetAddress(w: Writer, a: NetAddress): void {
  w.u64le(a.services)
    .bytes(ipToBytes(a.host))
    .u8(a.port >> 8)
    .u8(a.port & 0xff);
}

export function readNetAddress(r: Reader): NetAddress {
  const services = r.u64le();
  const host = bytesToIp(r.bytes(16, 'address'));
  const port = (r.u8() << 8) | r.u8();
  return { services, host, port };
}

/**
 * The group an address belongs to for bucketing and outbound diversity (Core's GetGroup without
 * -asmap): /16 for IPv4, /32 for IPv6; loopback and other local addresses share one group.
 */
export function netGroup(host: string): string {
  const b = ipToBytes(host);
  if (V4_MAPPED_PREFIX.every((v, i) => b[i] === v)) return `4:${b[12]}.${b[13]}`;
  return `6:${Array.from(b.subarray(0, 4), (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

/** Loopback, private and link-local addresses: never gossiped to other peers. */
export function isRoutable(host: string): boolean {
  const b = ipToBytes(host);
  if (V4_MAPPED_PREFIX.every((v, i) => b[i] === v)) {
    const [a, c] = [b[12], b[13]];
    return !(a === 0 || a === 10 || a === 127 || (a === 169 && c === 254) || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168));
  }
  const loopback = b.subarray(0, 15).every((x) => x === 0) && b[15] === 1;
  return !(loopback || b.every((x) => x === 0) || (b[0] & 0xfe) === 0xfc || (b[0] === 0xfe && (b[1] & 0xc0) === 0x80));
}
