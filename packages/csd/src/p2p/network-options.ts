/** The network's settings, from csd's options. */
export interface NetworkOptions {
  readonly listen: boolean;
  readonly port: number;
  /** Addresses to listen on ("host" or "host:port"); empty: every IPv4 and IPv6 address. */
  readonly bind: readonly string[];
  /** -connect: connect only to these. */
  readonly connect: readonly string[];
  readonly addnode: readonly string[];
  readonly seednode: readonly string[];
  readonly maxconnections: number;
  /** -whitelist entries, "[permissions@]subnet" (config/whitelist.ts). */
  readonly whitelist: readonly string[];
  /** -whitelistrelay and -whitelistforcerelay: the relay permissions of an entry without '@'. */
  readonly whitelistrelay: boolean;
  readonly whitelistforcerelay: boolean;
  readonly peertimeout: number;
  readonly bantime: number;
}
