// `H` items: a per-job stable slot derived from SHA-256 of "<field label>\n<hash key>" (spec 01 §5.5).

import { sha256Digest } from '../util/hash.ts';
import { ScheduleError } from './errors.ts';
import { FIELDS, Kind } from './fields.ts';

const H_ITEM = /^h(?:\((\d+)-(\d+)\))?(?:\/(\d+))?$/;

/** The seed v = first 8 bytes (big-endian, unsigned) of SHA-256("<label>\n<key>"), as its two 32-bit halves. */
export class HashSeed {
  readonly hi: number;
  readonly lo: number;
  constructor(label: string, key: string) {
    const d = sha256Digest(`${label}\n${key}`);
    this.hi = ((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0;
    this.lo = ((d[4]! << 24) | (d[5]! << 16) | (d[6]! << 8) | d[7]!) >>> 0;
  }

  /** v mod n for 1 <= n <= 32768, exactly, in small-integer arithmetic (16 bits at a time, no BigInt). */
  mod(n: number): number {
    let r = (this.hi >>> 16) % n;
    r = (r * 65536 + (this.hi & 0xffff)) % n;
    r = (r * 65536 + (this.lo >>> 16)) % n;
    return (r * 65536 + (this.lo & 0xffff)) % n;
  }

  /** v as a BigInt (for tests and diagnostics). */
  toBigInt(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }
}

/**
 * One H item (`H`, `H(a-b)`, `H/n`, `H(a-b)/n`, any case) -> its comma-joined values. `seed` is the field's seed
 * when already computed.
 */
function resolveItem(kind: Kind, raw: string, key: string | undefined, seed: HashSeed | null): string {
  const f = FIELDS[kind]!;
  if (kind === Kind.Year) throw new ScheduleError(`'H' is not valid in the year field`);
  if (key === undefined) {
    throw new ScheduleError(
      `'${raw}' in the ${f.label} field needs a hash key (the job name), and none was given`,
    );
  }
  let a = kind === Kind.DayOfMonth ? 1 : f.lo;
  let b = kind === Kind.DayOfMonth ? 28 : f.end;
  let step = 0;
  if (raw.length > 1) {
    const m = H_ITEM.exec(raw.toLowerCase());
    if (m === null) {
      throw new ScheduleError(
        `invalid hashed item '${raw}' in the ${f.label} field (use H, H(a-b), H/n or H(a-b)/n)`,
      );
    }
    if (m[1] !== undefined) {
      a = Number(m[1]);
      b = Number(m[2]);
      if (a < f.lo || a > f.hi || b < f.lo || b > f.hi) {
        throw new ScheduleError(`range of '${raw}' out of range ${f.lo}-${f.hi} in the ${f.label} field`);
      }
      if (a > b) throw new ScheduleError(`range of '${raw}' is reversed in the ${f.label} field`);
    }
    if (m[3] !== undefined) {
      step = Number(m[3]);
      if (step < 1 || step > b - a + 1) {
        throw new ScheduleError(
          `step ${step} in '${raw}' out of range 1-${b - a + 1} in the ${f.label} field`,
        );
      }
    }
  }
  const v = seed ?? new HashSeed(f.label, key);
  if (step === 0) return String(a + v.mod(b - a + 1));
  let out = '';
  for (let x = a + v.mod(step); x <= b; x += step) out = out === '' ? String(x) : `${out},${x}`;
  return out;
}

/** Replaces every H item of one field (original-case text) with its values; other items stay as written. */
export function resolveHashedField(kind: Kind, text: string, key: string | undefined): string {
  if (!text.includes(',')) {
    const c = text.charCodeAt(0);
    return c === 104 || c === 72 ? resolveItem(kind, text, key, null) : text;
  }
  const items = text.split(',');
  let seed: HashSeed | null = null;
  for (let i = 0; i < items.length; i++) {
    const c = items[i]!.charCodeAt(0);
    if (c !== 104 /* h */ && c !== 72 /* H */) continue;
    if (kind !== Kind.Year && key !== undefined) seed ??= new HashSeed(FIELDS[kind]!.label, key);
    items[i] = resolveItem(kind, items[i]!, key, seed);
  }
  return items.join(',');
}
