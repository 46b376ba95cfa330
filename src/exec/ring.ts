// A fixed-capacity FIFO that overwrites its oldest entry when full. Pure.

export class BoundedQueue<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length;
  }

  /** Appends; returns true when an old entry was evicted to make room (or capacity is 0). */
  push(item: T): boolean {
    if (this.capacity <= 0) return true;
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return false;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return true;
  }

  /** Oldest first. */
  toArray(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
}
