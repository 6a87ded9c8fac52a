/**
 * Values kept in one dense array under keys, for loops that touch every value and nothing else
 * (a job broadcast's sockets): a removed entry's place is taken by the last one.
 */
export class DenseList<K, V> {
  private readonly list: V[] = [];
  /** The key of each entry of `list`, at the same index. */
  private readonly keys: K[] = [];
  private readonly at = new Map<K, number>();

  /** Adds `value` under `key`, unless the key is already in. */
  add(key: K, value: V): void {
    if (this.at.has(key)) return;
    this.at.set(key, this.list.length);
    this.list.push(value);
    this.keys.push(key);
  }

  delete(key: K): void {
    const i = this.at.get(key);
    if (i === undefined) return;
    this.at.delete(key);
    const last = this.list.length - 1;
    if (i !== last) {
      this.list[i] = this.list[last];
      this.keys[i] = this.keys[last];
      this.at.set(this.keys[i], i);
    }
    this.list.pop();
    this.keys.pop();
  }

  get values(): readonly V[] {
    return this.list;
  }
}
