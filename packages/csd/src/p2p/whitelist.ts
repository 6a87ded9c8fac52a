/** -whitelist entries (config/whitelist.ts) as the connections apply them. */
import { AllowList } from '@cs/runtime/config';
import { implicitPermissions, type Permission, parseWhitelistEntry } from '../config/whitelist.ts';

export type Permissions = ReadonlySet<Permission>;
export const NO_PERMISSIONS: Permissions = new Set();

/** Core's -whitelistrelay and -whitelistforcerelay: what an entry without '@' grants besides noban and mempool. */
export interface ImplicitRelay {
  readonly relay: boolean;
  readonly forcerelay: boolean;
}

interface Range {
  readonly match: AllowList;
  readonly inbound: boolean;
  readonly outbound: boolean;
  readonly permissions: readonly Permission[];
}

/** The permissions of a peer, by its address and the direction of its connection. */
export class Whitelist {
  private readonly ranges: readonly Range[];

  constructor(values: readonly string[], implicit: ImplicitRelay) {
    const implied = implicitPermissions(implicit);
    this.ranges = values.map((v) => {
      const e = parseWhitelistEntry(v);
      if (typeof e === 'string') throw new Error(`Invalid -whitelist ${v}: ${e}`);
      return {
        match: new AllowList([e.subnet], 'whitelist'),
        inbound: e.inbound,
        outbound: e.outbound,
        permissions: e.implicit ? implied : e.permissions,
      };
    });
  }

  /** The union of the permissions of every entry that covers the peer, as Core adds them up. */
  permissions(host: string, direction: 'inbound' | 'outbound'): Permissions {
    const granted = new Set<Permission>();
    for (const r of this.ranges) {
      if ((direction === 'inbound' ? r.inbound : r.outbound) && r.match.allows(host)) for (const p of r.permissions) granted.add(p);
    }
    return granted.size === 0 ? NO_PERMISSIONS : granted;
  }
}
