/** A set that forgets its oldest entries beyond `max` (Core's rolling filters, exact here). */
export class RecentSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  add(item: string): void {
    if (this.items.has(item)) return;
    if (this.items.size >= this.max) this.items.delete(this.items.values().next().value!);
    this.items.add(item);
  }
  has(item: string): boolean {
    return this.items.has(item);
  }
  clear(): void {
    this.items.clear();
  }
}
