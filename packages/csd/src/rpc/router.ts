/**
 * Path routing for the RPC port, as Core's HTTP handlers: an exact path ("/", "/metrics") or a
 * prefix ("/wallet/", "/rest/"), the longest matching prefix winning. The handler learns the
 * rest of the path after its prefix.
 */
export interface RouteMatch<T> {
  readonly target: T;
  /** The full path for an exact route; what follows the prefix for a prefix route. */
  readonly rest: string;
}

export class Router<T> {
  /** Exact routes keep their (constant) match, so the common case allocates nothing. */
  readonly #exact = new Map<string, RouteMatch<T>>();
  #prefixes: { readonly prefix: string; readonly target: T }[] = [];

  add(path: string, target: T, options: { readonly prefix?: boolean } = {}): void {
    if (!path.startsWith('/')) throw new Error(`route ${path} must start with /`);
    if (options.prefix === true) {
      if (this.#prefixes.some((p) => p.prefix === path)) throw new Error(`route prefix ${path} added twice`);
      this.#prefixes = [...this.#prefixes, { prefix: path, target }].sort((a, b) => b.prefix.length - a.prefix.length);
    } else {
      if (this.#exact.has(path)) throw new Error(`route ${path} added twice`);
      this.#exact.set(path, { target, rest: path });
    }
  }

  match(path: string): RouteMatch<T> | undefined {
    const exact = this.#exact.get(path);
    if (exact !== undefined) return exact;
    for (const { prefix, target } of this.#prefixes) {
      if (path.startsWith(prefix)) return { target, rest: path.slice(prefix.length) };
    }
    return undefined;
  }
}
