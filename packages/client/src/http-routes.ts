/**
 * Route tables whose paths are OpenAPI path templates (`/api/user/{address}`): cs-pool's and
 * cs-bridge's HTTP servers dispatch through them, and the tests of docs/api's OpenAPI documents
 * read the same tables, so a route cannot be served without being described.
 */
export interface HttpRoute<H extends string = string> {
  readonly method: 'GET' | 'POST';
  /** An OpenAPI path template; `{name}` matches one non-empty path segment. */
  readonly path: string;
  /** The server's name for what answers it. */
  readonly handler: H;
}

export type RouteMatch<H extends string> =
  | { readonly kind: 'found'; readonly route: HttpRoute<H>; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method-not-allowed'; readonly allowed: readonly string[] }
  | { readonly kind: 'not-found' };

interface Compiled<H extends string> {
  readonly route: HttpRoute<H>;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

export class RouteTable<H extends string> {
  private readonly compiled: readonly Compiled<H>[];

  constructor(readonly routes: readonly HttpRoute<H>[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, pattern: new RegExp(`^${source}$`), names };
    });
  }

  match(method: string, pathname: string): RouteMatch<H> {
    const allowed: string[] = [];
    for (const { route, pattern, names } of this.compiled) {
      const m = pattern.exec(pathname);
      if (m === null) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      let params: Record<string, string>;
      try {
        params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(m[i + 1])]));
      } catch {
        return { kind: 'not-found' }; // a malformed %-escape names nothing
      }
      return { kind: 'found', route, params };
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
