/**
 * -whitelist entries, as Core reads them: `[permissions@]<subnet>`, the permissions a comma list
 * of Core's words and of the directions `in` and `out` (Core 27). Without a direction an entry
 * covers peers that connect to us, as in Core; `out` covers the connections we make. csd gives
 * every whitelisted peer the same treatment (noban, and transactions announced at once), so the
 * permission words are checked and not told apart.
 */
import { checkSubnet } from '@cs/runtime/config';

const PERMISSIONS = new Set(['bloomfilter', 'noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr', 'all']);

export interface WhitelistEntry {
  readonly subnet: string;
  readonly inbound: boolean;
  readonly outbound: boolean;
}

/** The entry, or why it is not one (the words Core refuses to start on). */
export function parseWhitelistEntry(value: string): WhitelistEntry | string {
  const at = value.indexOf('@');
  const subnet = at < 0 ? value : value.slice(at + 1);
  const bad = checkSubnet(subnet);
  if (bad) return bad;
  if (at < 0) return { subnet, inbound: true, outbound: false };
  let inbound = false;
  let outbound = false;
  let permissions = 0;
  for (const word of value.slice(0, at).split(',')) {
    if (word === 'in') inbound = true;
    else if (word === 'out') outbound = true;
    else if (PERMISSIONS.has(word)) permissions++;
    else if (word !== '') return `'${word}' is not a P2P permission (${[...PERMISSIONS].join(', ')}, in, out)`;
  }
  if (permissions === 0 && (inbound || outbound)) return `only a direction is set, no permission: '${value}'`;
  return { subnet, inbound: inbound || !outbound, outbound };
}
