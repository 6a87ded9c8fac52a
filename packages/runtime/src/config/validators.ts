/**
 * Checks for option values that are addresses. Each check returns what the option expected
 * (for "Invalid value for -x: 'v' (expected ...)"), or null when the value is fine.
 */
import { isIP } from 'node:net';
import { parseSubnet } from './subnet.ts';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

function isHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/**
 * Splits "host", "host:port", "[v6]:port", "[v6]" or a bare IPv6 address the way Core's
 * SplitHostPort does: a colon introduces a port only when it is the only colon or follows a
 * closing bracket, so "::1" is an address, not "::" and port 1. Returns null for a bad port or host.
 */
export function splitHostPort(text: string): { readonly host: string; readonly port: number | null } | null {
  const colon = text.lastIndexOf(':');
  const bracketed = colon > 0 && text.startsWith('[') && text[colon - 1] === ']';
  const multiColon = colon >= 0 && text.indexOf(':') < colon;
  let host = text;
  let port: number | null = null;
  if (colon >= 0 && (colon === 0 || bracketed || !multiColon)) {
    port = parsePort(text.slice(colon + 1));
    if (port === null) return null;
    host = text.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    if (isIP(host) !== 6) return null;
  }
  return isHost(host) ? { host, port } : null;
}

/** -rpcbind, -bind, -addnode, -connect: an address or name, optionally with a port. */
export function checkHostPort(value: string): string | null {
  return splitHostPort(value) ? null : 'an address or host name, optionally with :port ([addr]:port for IPv6)';
}

/** -rpcallowip: a single address, a CIDR network or an IPv4 network/netmask. */
export function checkSubnet(value: string): string | null {
  return parseSubnet(value) ? null : 'a single IP (1.2.3.4 or ::1), a network/CIDR (10.0.0.0/8) or a network/netmask (192.168.1.0/255.255.255.0)';
}

/**
 * -zmqpub*: tcp://host:port or ipc://path, the two transports a publisher on this machine uses.
 * `*` binds every interface, as ZeroMQ allows.
 */
export function checkZmqEndpoint(value: string): string | null {
  const expected = 'tcp://host:port or ipc://path';
  if (value.startsWith('ipc://')) return value.length > 'ipc://'.length ? null : expected;
  if (!value.startsWith('tcp://')) return expected;
  const rest = value.slice('tcp://'.length);
  if (rest.startsWith('*:')) return parsePort(rest.slice(2)) === null ? expected : null;
  const target = splitHostPort(rest);
  return target && target.port !== null ? null : expected;
}
