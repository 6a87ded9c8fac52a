import { isIP } from 'node:net';

/** One -rpcallowip entry: an address and how many leading bits of it must match. */
export interface Subnet {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/**
 * Reads an -rpcallowip value as Core's LookupSubNet does: a single address (1.2.3.4, ::1), a
 * network/CIDR (10.0.0.0/8, fd00::/8) or an IPv4 network/netmask (192.168.1.0/255.255.255.0).
 * The netmask must be contiguous. Returns null for anything else; no name lookups.
 */
export function parseSubnet(text: string): Subnet | null {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  if (slash < 0) return { address, prefix: bits, family };

  const mask = text.slice(slash + 1);
  if (/^\d{1,3}$/.test(mask)) {
    const prefix = Number(mask);
    return prefix <= bits ? { address, prefix, family } : null;
  }
  if (version === 4 && isIP(mask) === 4) {
    const prefix = netmaskPrefix(mask);
    return prefix === null ? null : { address, prefix, family };
  }
  return null;
}

function netmaskPrefix(mask: string): number | null {
  const value = mask.split('.').reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
  for (let prefix = 0; prefix <= 32; prefix++) {
    const expected = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if (value === expected) return prefix;
  }
  return null;
}
