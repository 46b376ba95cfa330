// Cursors `cursor/<scope>` (spec 03 §6.5): compare-and-set under one BEGIN IMMEDIATE
// transaction, fleet-wide. Forward only (numbers numerically, strings by code point), 409 on
// incomparable types, `force` is the only way back; concurrent advances converge to the max.
import { type Json, type KvEntry, StoreRequestError } from '../types.ts';
import { assertPortable, type Ctx, compareJson, requireName } from './common.ts';
import { field, readDoc, readDocStrict, writeDoc } from './documents.ts';

const docNs = (scope: string) => `cursor/${scope}`;

export function cursorGet(c: Ctx, scope: string, name: string): KvEntry | null {
  requireName(name, 'name');
  const doc = readDoc(c, docNs(scope), name);
  if (doc.state !== 'ok') return null;
  const value = field(doc.body, 'value');
  return value === undefined ? null : { key: name, value, updatedAt: doc.updatedAt };
}

export function cursorAdvance(
  c: Ctx,
  scope: string,
  name: string,
  value: Json,
  force: boolean,
): { value: Json; advanced: boolean } {
  requireName(name, 'name');
  if (value === undefined) throw new StoreRequestError(400, 'value is required');
  assertPortable(value);
  return c.db.transaction(() => {
    const current = readDocStrict(c, docNs(scope), name);
    const currentValue = current ? field(current.body, 'value') : undefined;
    if (!force && currentValue !== undefined) {
      const order = compareJson(value, currentValue);
      if (order === null)
        throw new StoreRequestError(
          409,
          `cursor ${name} holds ${describe(currentValue)} and cannot be compared with ${describe(value)}; advance it with a comparable value or pass force`,
        );
      if (order <= 0) return { value: currentValue, advanced: false };
    }
    writeDoc(c, docNs(scope), name, { name, value, updatedAt: c.now });
    return { value, advanced: true };
  });
}

function describe(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
