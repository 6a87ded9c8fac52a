/** -whitelist entries (config/whitelist.ts) as the connections apply them. */
import { AllowList } from '@cs/runtime/config';
import { parseWhitelistEntry } from '../config/whitelist.ts';

/** Which peers are whitelisted, by the direction of their connection. */
export class Whitelist {
  private readonly inbound: AllowList;
  private readonly outbound: AllowList;

  constructor(values: readonly string[]) {
    const entries = values.map((v) => {
      const e = parseWhitelistEntry(v);
      if (typeof e === 'string') throw new Error(`Invalid -whitelist ${v}: ${e}`);
      return e;
    });
    this.inbound = new AllowList(
      entries.filter((e) => e.inbound).map((e) => e.subnet),
      'whitelist',
    );
    this.outbound = new AllowList(
      entries.filter((e) => e.outbound).map((e) => e.subnet),
      'whitelist',
    );
  }

  allows(host: string, direction: 'inbound' | 'outbound'): boolean {
    return (direction === 'inbound' ? this.inbound : this.outbound).allows(host);
  }
}
