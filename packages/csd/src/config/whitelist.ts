/**
 * -whitelist entries, as Core reads them: `[permissions@]<subnet>`, the permissions a comma list
 * of Core's words and of the directions `in` and `out` (Core 27). Without a direction an entry
 * covers peers that connect to us, as in Core; `out` covers the connections we make by hand
 * (-connect, -addnode, addnode onetry). An entry without '@' gets Core's implicit permissions.
 */
import { checkSubnet } from '@cs/runtime/config';

/** Core's permission flags (net_permissions.h), in the order getpeerinfo lists them. */
export const PERMISSIONS = ['bloomfilter', 'noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each word grants: as in Core, noban implies download and forcerelay relay; 'bloom' is an alias. */
const GRANTS: Readonly<Record<string, readonly Permission[]>> = {
  bloomfilter: ['bloomfilter'],
  bloom: ['bloomfilter'],
  noban: ['noban', 'download'],
  forcerelay: ['forcerelay', 'relay'],
  relay: ['relay'],
  mempool: ['mempool'],
  download: ['download'],
  addr: ['addr'],
  all: PERMISSIONS,
};

/** The permissions `words` grant with what they imply, in Core's order. */
function grant(words: readonly string[]): Permission[] {
  const granted = new Set(words.flatMap((w) => GRANTS[w] ?? []));
  return PERMISSIONS.filter((p) => granted.has(p));
}

/**
 * Core's implicit permissions, those of an entry without '@': noban and mempool, and relay and
 * forcerelay as -whitelistrelay and -whitelistforcerelay say.
 */
export function implicitPermissions(o: { readonly relay: boolean; readonly forcerelay: boolean }): Permission[] {
  return grant(['noban', 'mempool', ...(o.relay ? ['relay'] : []), ...(o.forcerelay ? ['forcerelay'] : [])]);
}

export interface WhitelistEntry {
  readonly subnet: string;
  readonly inbound: boolean;
  readonly outbound: boolean;
  readonly permissions: readonly Permission[];
  /** No '@': Core's implicit permissions (implicitPermissions). */
  readonly implicit: boolean;
}

/** The entry, or why it is not one (the words Core refuses to start on). */
export function parseWhitelistEntry(value: string): WhitelistEntry | string {
  const at = value.indexOf('@');
  const subnet = at < 0 ? value : value.slice(at + 1);
  const bad = checkSubnet(subnet);
  if (bad) return bad;
  if (at < 0) return { subnet, inbound: true, outbound: false, permissions: [], implicit: true };
  let inbound = false;
  let outbound = false;
  const words: string[] = [];
  for (const word of value.slice(0, at).split(',')) {
    if (word === 'in') inbound = true;
    else if (word === 'out') outbound = true;
    else if (Object.hasOwn(GRANTS, word)) words.push(word);
    else if (word !== '') return `'${word}' is not a P2P permission (${Object.keys(GRANTS).join(', ')}, in, out)`;
  }
  if (words.length === 0 && (inbound || outbound)) return `only a direction is set, no permission: '${value}'`;
  return { subnet, inbound: inbound || !outbound, outbound, permissions: grant(words), implicit: false };
}
