// `H` items: a per-job stable slot derived from SHA-256 of "<field label>\n<hash key>" (spec 01 §5.5).
import { ScheduleError } from './errors.ts';
import { FIELDS, Kind } from './fields.ts';
import { sha256OfString } from './sha256.ts';

const H_ITEM = /^h(?:\((\d+)-(\d+)\))?(?:\/(\d+))?$/;
const TWO_32 = 0x1_0000_0000;

/** The seed v = first 8 bytes (big-endian, unsigned) of SHA-256("<label>\n<key>"), as its two 32-bit halves. */
export class HashSeed {
  readonly hi: number;
  readonly lo: number;
  constructor(label: string, key: string) {
    const w = sha256OfString(`${label}\n${key}`);
    this.hi = w[0]! >>> 0;
    this.lo = w[1]! >>> 0;
  }

  /** v mod n, exact for any n below 2^26 (no BigInt needed: both halves are reduced first). */
  mod(n: number): number {
    return ((((this.hi % n) * (TWO_32 % n)) % n) + (this.lo % n)) % n;
  }

  /** v as a BigInt (for tests and diagnostics). */
  toBigInt(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }
}

/** Replaces every H item of one field (original-case text) with its values; other items stay as written. */
export function resolveHashedField(kind: Kind, text: string, key: string | undefined): string {
  const f = FIELDS[kind]!;
  const items = text.split(',');
  let seed: HashSeed | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!.toLowerCase();
    if (item.charCodeAt(0) !== 104 /* h */) continue;
    if (kind === Kind.Year) throw new ScheduleError(`'H' is not valid in the year field`);
    if (key === undefined) {
      throw new ScheduleError(
        `'${items[i]}' in the ${f.label} field needs a hash key (the job name), and none was given`,
      );
    }
    const m = H_ITEM.exec(item);
    if (m === null) {
      throw new ScheduleError(
        `invalid hashed item '${items[i]}' in the ${f.label} field (use H, H(a-b), H/n or H(a-b)/n)`,
      );
    }
    let a: number;
    let b: number;
    if (m[1] !== undefined) {
      a = Number(m[1]);
      b = Number(m[2]);
      if (a < f.lo || a > f.hi || b < f.lo || b > f.hi) {
        throw new ScheduleError(
          `range of '${items[i]}' out of range ${f.lo}-${f.hi} in the ${f.label} field`,
        );
      }
      if (a > b) throw new ScheduleError(`range of '${items[i]}' is reversed in the ${f.label} field`);
    } else {
      a = kind === Kind.DayOfMonth ? 1 : f.lo;
      b = kind === Kind.DayOfMonth ? 28 : f.end;
    }
    const span = b - a + 1;
    seed ??= new HashSeed(f.label, key);
    if (m[3] === undefined) {
      items[i] = String(a + seed.mod(span));
    } else {
      const n = Number(m[3]);
      if (n < 1 || n > span)
        throw new ScheduleError(`step ${n} in '${items[i]}' out of range 1-${span} in the ${f.label} field`);
      const values: number[] = [];
      for (let v = a + seed.mod(n); v <= b; v += n) values.push(v);
      items[i] = values.join(',');
    }
  }
  return items.join(',');
}
