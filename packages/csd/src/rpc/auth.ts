/**
 * HTTP Basic authentication for JSON-RPC, as Core's RPCAuthorized: the header must start with
 * "Basic ", the base64 part must decode to "user:password", and that whole string must equal one
 * configured credential (rpcuser:rpcpassword, or the cookie's __cookie__:<hex>).
 *
 * Comparisons run over SHA-256 digests with timingSafeEqual, and over every credential without
 * stopping at a match, so neither the position of the first wrong byte nor the length of the
 * secret shows in the response time. Accepted header values are remembered (a bounded set), so a
 * keep-alive client pays for the check once, not per request.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RpcCredentials } from '@cs/runtime/datadir';

/** Distinct accepted header values kept; a node has one or two credentials, so this is ample. */
const CACHE_LIMIT = 64;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class BasicAuth {
  readonly #digests: readonly Buffer[];
  readonly #accepted = new Set<string>();

  constructor(credentials: readonly RpcCredentials[]) {
    if (credentials.length === 0) throw new Error('JSON-RPC needs at least one credential (rpcpassword or the cookie)');
    for (const c of credentials) {
      // Basic credentials end the user name at the first colon: one inside it would be ambiguous.
      if (c.user.includes(':')) throw new Error('rpcuser must not contain a colon');
      if (c.password === '') throw new Error('an RPC password must not be empty');
    }
    this.#digests = credentials.map((c) => sha256(`${c.user}:${c.password}`));
  }

  /** Whether an Authorization header value carries one of the credentials. */
  check(header: string): boolean {
    if (this.#accepted.has(header)) return true;
    const ok = this.#verify(header);
    if (ok) {
      if (this.#accepted.size >= CACHE_LIMIT) this.#accepted.clear();
      this.#accepted.add(header);
    }
    return ok;
  }

  #verify(header: string): boolean {
    if (!header.startsWith('Basic ')) return false;
    const encoded = header.slice(6).trim();
    if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return false;
    const digest = sha256(Buffer.from(encoded, 'base64').toString('utf8'));
    let match = false;
    for (const expected of this.#digests) match = timingSafeEqual(digest, expected) || match;
    return match;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
