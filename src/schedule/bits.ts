// Bit-set helpers on 32-bit masks; 60-value fields (second, minute) use two 30-bit halves.

/** Smallest set bit index >= v, or -1. */
export function nextBit(mask: number, v: number): number {
  if (v > 31) return -1;
  const x = mask & (-1 << v);
  return x === 0 ? -1 : 31 - Math.clz32(x & -x);
}

/** Largest set bit index <= v, or -1. */
export function prevBit(mask: number, v: number): number {
  if (v < 0) return -1;
  const x = v >= 31 ? mask : mask & ((2 << v) - 1);
  return x === 0 ? -1 : 31 - Math.clz32(x);
}

/** nextBit over a 60-value set stored as lo (0-29) and hi (30-59). */
export function nextBit60(lo: number, hi: number, v: number): number {
  if (v < 30) {
    const x = lo & (-1 << v);
    if (x !== 0) return 31 - Math.clz32(x & -x);
    return hi === 0 ? -1 : 61 - Math.clz32(hi & -hi);
  }
  if (v > 59) return -1;
  const x = hi & (-1 << (v - 30));
  return x === 0 ? -1 : 61 - Math.clz32(x & -x);
}

/** prevBit over a 60-value set stored as lo (0-29) and hi (30-59). */
export function prevBit60(lo: number, hi: number, v: number): number {
  if (v >= 30) {
    const x = v >= 59 ? hi : hi & ((2 << (v - 30)) - 1);
    if (x !== 0) return 61 - Math.clz32(x);
    return lo === 0 ? -1 : 31 - Math.clz32(lo);
  }
  if (v < 0) return -1;
  const x = lo & ((2 << v) - 1);
  return x === 0 ? -1 : 31 - Math.clz32(x);
}

export function hasBit60(lo: number, hi: number, v: number): boolean {
  return v < 30 ? (lo & (1 << v)) !== 0 : (hi & (1 << (v - 30))) !== 0;
}

export function popcount(x: number): number {
  let n = 0;
  let y = x;
  while (y !== 0) {
    y &= y - 1;
    n++;
  }
  return n;
}

/** Set bit indexes of a mask, ascending. */
export function bitList(mask: number): number[] {
  const out: number[] = [];
  let y = mask;
  while (y !== 0) {
    out.push(31 - Math.clz32(y & -y));
    y &= y - 1;
  }
  return out;
}

export function bitList60(lo: number, hi: number): number[] {
  return [...bitList(lo), ...bitList(hi).map((v) => v + 30)];
}

/** Lowest value of a non-empty 60-value set. */
export function lowest60(lo: number, hi: number): number {
  return lo !== 0 ? 31 - Math.clz32(lo & -lo) : 61 - Math.clz32(hi & -hi);
}

/** Highest value of a non-empty 60-value set. */
export function highest60(lo: number, hi: number): number {
  return hi !== 0 ? 61 - Math.clz32(hi) : 31 - Math.clz32(lo);
}
