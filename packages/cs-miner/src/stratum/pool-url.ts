/** Pool addresses as miners write them: stratum+tcp://host:port, stratum+ssl://host:port (TLS). */

export interface PoolUrl {
  readonly tls: boolean;
  readonly host: string;
  readonly port: number;
  /** As the operator wrote it, for logs. */
  readonly text: string;
}

const SCHEMES: Readonly<Record<string, boolean>> = {
  'stratum+tcp': false,
  stratum: false,
  tcp: false,
  'stratum+ssl': true,
  'stratum+tls': true,
  ssl: true,
  tls: true,
};

/** Reads one address; a bare host:port is plain TCP. Anything else is a RangeError naming the text. */
export function parsePoolUrl(text: string): PoolUrl {
  const m = /^(?:([a-z+]+):\/\/)?(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})\/?$/.exec(text.trim());
  const scheme = m?.[1] ?? 'stratum+tcp';
  const tls = SCHEMES[scheme];
  const port = Number(m?.[3]);
  if (!m || tls === undefined || port < 1 || port > 65535) {
    throw new RangeError(`'${text}' is not a pool address (stratum+tcp://host:port or stratum+ssl://host:port)`);
  }
  return { tls, host: m[2].replace(/^\[|\]$/g, ''), port, text: `${tls ? 'stratum+ssl' : 'stratum+tcp'}://${m[2]}:${port}` };
}
