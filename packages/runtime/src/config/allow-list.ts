/**
 * Which client addresses a list of subnets admits: csd's -rpcallowip and -whitelist, cs-pool's
 * -whitelist. Entries take Core's forms, read by subnet.ts: a single address (1.2.3.4, ::1), CIDR
 * (10.0.0.0/8, fd00::/8) or an IPv4 netmask (192.168.1.0/255.255.255.0). IPv4-mapped IPv6
 * addresses (::ffff:127.0.0.1, what a dual-stack socket reports) count as their IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { parseSubnet } from './subnet.ts';

interface Subnet {
  /** 4 bytes for IPv4, 16 for IPv6. */
  readonly network: Uint8Array;
  readonly prefix: number;
}

export class AllowList {
  readonly #subnets: readonly Subnet[];

  /** Throws on an entry that is not an address or subnet, naming it and the option it came from (Core refuses to start too). */
  constructor(entries: readonly string[], option = 'rpcallowip') {
    this.#subnets = entries.map((entry) => toSubnet(entry, option));
  }

  get empty(): boolean {
    return this.#subnets.length === 0;
  }

  allows(address: string): boolean {
    const bytes = parseAddress(address);
    return bytes !== null && this.#subnets.some((subnet) => contains(subnet, bytes));
  }
}

/** An entry (parsed as the config checks it) as bytes to compare against. */
function toSubnet(entry: string, option: string): Subnet {
  const parsed = parseSubnet(entry);
  if (parsed === null) throw new Error(`Invalid ${option} subnet specification: ${entry}`);
  const network = parseAddress(parsed.address) as Uint8Array;
  // An IPv4-mapped IPv6 entry compares as IPv4: its first 96 bits are the mapping prefix.
  const prefix = parsed.family === 'ipv6' && network.length === 4 ? Math.max(0, parsed.prefix - 96) : parsed.prefix;
  return { network, prefix };
}

function contains(subnet: Subnet, address: Uint8Array): boolean {
  if (subnet.network.length !== address.length) return false;
  const whole = subnet.prefix >> 3;
  for (let i = 0; i < whole; i++) if (subnet.network[i] !== address[i]) return false;
  const rest = subnet.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (subnet.network[whole] & mask) === (address[whole] & mask);
}

/** Address text to bytes: 4 for IPv4 and IPv4-mapped IPv6, 16 for other IPv6; null if not an address. */
function parseAddress(text: string): Uint8Array | null {
  const address = text.replace(/%.*$/, ''); // a link-local zone names an interface, not part of the address
  if (isIPv4(address)) return Uint8Array.from(address.split('.').map(Number));
  if (!isIPv6(address)) return null;
  const bytes = ipv6Bytes(address);
  const mapped = bytes.subarray(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff));
  return mapped ? bytes.slice(12) : bytes;
}

/** Expands a valid IPv6 text (with "::" and an optional dotted IPv4 tail) into 16 bytes. */
export function ipv6Bytes(address: string): Uint8Array {
  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [parseInt(g, 16)];
      const [a, b, c, d] = g.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head, tail] = address.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}
