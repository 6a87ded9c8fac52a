/**
 * bitcoin-cli -netinfo: a dashboard of the node's peer connections from getnetworkinfo and
 * getpeerinfo. Level 0 (the default) counts peers by direction and network; levels 1-4 also list
 * each peer (bitcoin-cli's levels 2-4 add address-relay and IP detail csd does not track, so they
 * print what level 1 prints).
 */
import { CliError } from './errors.ts';
import { jsonArray, jsonObject, jsonString, member, writeJson, type JsonValue } from './json.ts';

interface PeerInfo {
  readonly id: number;
  readonly addr: string;
  readonly network: string;
  readonly inbound: boolean;
  readonly connection_type: string;
  readonly pingtime?: number;
  readonly minping?: number;
  readonly lastsend: number;
  readonly lastrecv: number;
  readonly conntime: number;
  readonly version: number;
  readonly subver: string;
}

interface NetworkInfo {
  readonly subversion: string;
  readonly protocolversion: number;
  readonly localaddresses: readonly { address: string; port: number }[];
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

/** The dashboard's text; `now` in Unix seconds. */
export function formatNetinfo(level: number, network: NetworkInfo, peers: readonly PeerInfo[], now: number): string {
  const count = (inbound: boolean | null, net: string | null) =>
    peers.filter((p) => (inbound === null || p.inbound === inbound) && (net === null || p.network === net)).length;
  const lines = [`cs client ${network.subversion} - server ${network.protocolversion}${network.subversion}`, ''];
  if (level > 0 && peers.length > 0) {
    lines.push('<->   type   net  mping   ping send recv  age  id  address  version');
    for (const p of [...peers].sort((a, b) => Number(a.inbound) - Number(b.inbound) || a.id - b.id)) {
      const ms = (s: number | undefined) => (s === undefined ? '' : String(Math.round(s * 1000)));
      lines.push(
        [
          pad(p.inbound ? 'in' : 'out', 3),
          pad(p.connection_type === 'manual' ? 'manual' : p.inbound ? '' : 'full', 6),
          pad(p.network, 5),
          pad(ms(p.minping), 6),
          pad(ms(p.pingtime), 6),
          pad(Math.max(0, now - p.lastsend), 4),
          pad(Math.max(0, now - p.lastrecv), 4),
          pad(Math.floor(Math.max(0, now - p.conntime) / 60), 4),
          pad(p.id, 3),
          ` ${p.addr}`,
          ` ${p.version}${p.subver}`,
        ].join(' '),
      );
    }
    lines.push('                     ms     ms  sec  sec  min', '');
  }
  lines.push('        ipv4    ipv6   total');
  for (const [label, inbound] of [
    ['in', true],
    ['out', false],
    ['total', null],
  ] as const) {
    lines.push(`${label.padEnd(5)}${pad(count(inbound, 'ipv4'), 7)}${pad(count(inbound, 'ipv6'), 8)}${pad(count(inbound, null), 8)}`);
  }
  lines.push(
    '',
    `Local addresses: ${network.localaddresses.length === 0 ? 'n/a' : network.localaddresses.map((a) => `${a.address}:${a.port}`).join(', ')}`,
  );
  return lines.join('\n');
}

/** Runs -netinfo: the reply carries the dashboard as its result, or the first RPC error. */
export async function netinfo(args: readonly string[], call: (name: string, params: JsonValue) => Promise<JsonValue>): Promise<JsonValue> {
  if (args.length > 1) throw new CliError('too many arguments (-netinfo takes at most a level, 0 to 4)');
  const level = args.length === 0 ? 0 : Number(args[0]);
  if (!Number.isInteger(level) || level < 0 || level > 4) throw new CliError(`invalid -netinfo level ${args[0]}: expected 0 to 4`);
  const results: unknown[] = [];
  for (const method of ['getnetworkinfo', 'getpeerinfo']) {
    const reply = await call(method, jsonArray([]));
    const error = member(reply, 'error');
    const result = member(reply, 'result');
    if ((error && error.type !== 'null') || !result) return reply;
    results.push(JSON.parse(writeJson(result)));
  }
  const text = formatNetinfo(level, results[0] as NetworkInfo, results[1] as PeerInfo[], Math.floor(Date.now() / 1000));
  return jsonObject([
    ['result', jsonString(text)],
    ['error', { type: 'null' }],
  ]);
}
