/**
 * Cross-origin browser access (rpccorsdomain): exactly one allowed origin. A request whose Origin
 * equals it gets Access-Control-Allow-Origin with that origin and Allow-Credentials (so the page
 * may send Basic auth), and its preflight is answered without credentials; any other origin gets
 * no CORS headers at all, so the browser keeps the response from the page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sent (status 204) in answer to a preflight from the allowed origin. */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Max-Age': '600',
};

export class CorsPolicy {
  readonly #origin: string | undefined;

  /** `origin` undefined: rpccorsdomain unset, no request is cross-origin-enabled. */
  constructor(origin: string | undefined) {
    this.#origin = origin === '' ? undefined : origin;
  }

  /** Adds the CORS headers when the request comes from the allowed origin; says whether it did. */
  apply(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.#origin === undefined) return false;
    // Caches must keep answers for different origins apart, matched or not.
    res.setHeader('Vary', 'Origin');
    if (req.headers.origin !== this.#origin) return false;
    res.setHeader('Access-Control-Allow-Origin', this.#origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    return true;
  }
}
