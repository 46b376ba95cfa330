// Binary min-heap of values keyed by a number (fire instants); ties pop in insertion order.

export class MinHeap<T> {
  private keys: number[] = [];
  private seqs: number[] = [];
  private values: T[] = [];
  private seq = 0;

  get size(): number {
    return this.keys.length;
  }

  push(key: number, value: T): void {
    const keys = this.keys;
    const seqs = this.seqs;
    const values = this.values;
    const seq = this.seq++;
    let i = keys.length;
    keys.push(key);
    seqs.push(seq);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk < key || (pk === key && seqs[parent]! < seq)) break;
      keys[i] = pk;
      seqs[i] = seqs[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    keys[i] = key;
    seqs[i] = seq;
    values[i] = value;
  }

  /** Smallest key, or undefined when empty. */
  peekKey(): number | undefined {
    return this.keys[0];
  }

  peek(): T | undefined {
    return this.values[0];
  }

  /** Removes and returns the value with the smallest key (undefined when empty). */
  pop(): T | undefined {
    const keys = this.keys;
    const n = keys.length;
    if (n === 0) return undefined;
    const top = this.values[0];
    const lastKey = keys.pop()!;
    const lastSeq = this.seqs.pop()!;
    const lastValue = this.values.pop()!;
    if (n > 1) this.siftDown(lastKey, lastSeq, lastValue);
    return top;
  }

  private siftDown(key: number, seq: number, value: T): void {
    const keys = this.keys;
    const seqs = this.seqs;
    const values = this.values;
    const n = keys.length;
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
      values[i] = values[c]!;
      i = c;
    }
    keys[i] = key;
    seqs[i] = seq;
    values[i] = value;
  }

  /** Empties the heap. */
  clear(): void {
    this.keys = [];
    this.seqs = [];
    this.values = [];
  }
}
