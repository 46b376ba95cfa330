// Binary min-heap of values keyed by a number (fire instants); ties pop in insertion order.
// Keys and insertion numbers live in typed arrays (off the GC-scanned heap), values in a plain array.

export class MinHeap<T> {
  private keys = new Float64Array(64);
  private seqs = new Float64Array(64);
  private values: (T | undefined)[] = [];
  private n = 0;
  private seq = 0;

  get size(): number {
    return this.n;
  }

  push(key: number, value: T): void {
    if (this.n === this.keys.length) this.grow();
    const keys = this.keys;
    const seqs = this.seqs;
    const values = this.values;
    const seq = this.seq++;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk < key || (pk === key && seqs[parent]! < seq)) break;
      keys[i] = pk;
      seqs[i] = seqs[parent]!;
      values[i] = values[parent];
      i = parent;
    }
    keys[i] = key;
    seqs[i] = seq;
    values[i] = value;
  }

  /** Smallest key, or undefined when empty. */
  peekKey(): number | undefined {
    return this.n === 0 ? undefined : this.keys[0];
  }

  peek(): T | undefined {
    return this.n === 0 ? undefined : this.values[0];
  }

  /** Removes and returns the value with the smallest key (undefined when empty). */
  pop(): T | undefined {
    if (this.n === 0) return undefined;
    const top = this.values[0];
    const last = --this.n;
    const key = this.keys[last]!;
    const seq = this.seqs[last]!;
    const value = this.values[last];
    this.values[last] = undefined;
    if (last > 0) this.siftDown(key, seq, value);
    return top;
  }

  private siftDown(key: number, seq: number, value: T | undefined): void {
    const keys = this.keys;
    const seqs = this.seqs;
    const values = this.values;
    const n = this.n;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n && (keys[r]! < keys[c]! || (keys[r] === keys[c] && seqs[r]! < seqs[c]!))) c = r;
      const ck = keys[c]!;
      if (key < ck || (key === ck && seq < seqs[c]!)) break;
      keys[i] = ck;
      seqs[i] = seqs[c]!;
      values[i] = values[c];
      i = c;
    }
    keys[i] = key;
    seqs[i] = seq;
    values[i] = value;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.keys = keys;
    this.seqs = seqs;
  }

  /** Empties the heap. */
  clear(): void {
    this.keys = new Float64Array(64);
    this.seqs = new Float64Array(64);
    this.values = [];
    this.n = 0;
  }
}
