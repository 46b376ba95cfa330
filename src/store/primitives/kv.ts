// KV documents `kv/<scope>` (spec 03 §3.2, §6.5): body `{key, value, updatedAt}`; last write
// wins, and set always writes (a fresh updatedAt).
import type { Json, KvEntry } from '../types.ts';
import { assertPortable, type Ctx, requireName } from './common.ts';
import { deleteDoc, field, listDocs, readDoc, readDocStrict, writeDoc } from './documents.ts';

const docNs = (scope: string) => `kv/${scope}`;

function entry(key: string, body: Json, updatedAt: number): KvEntry | null {
  const value = field(body, 'value');
  return value === undefined ? null : { key, value, updatedAt };
}

export function kvGet(c: Ctx, scope: string, key: string): KvEntry | null {
  requireName(key, 'key');
  const doc = readDoc(c, docNs(scope), key);
  return doc.state === 'ok' ? entry(key, doc.body, doc.updatedAt) : null;
}

export function kvSet(c: Ctx, scope: string, key: string, value: Json): KvEntry {
  requireName(key, 'key');
  assertPortable(value);
  return c.db.transaction(() => {
    readDocStrict(c, docNs(scope), key);
    writeDoc(c, docNs(scope), key, { key, value, updatedAt: c.now });
    return { key, value, updatedAt: c.now };
  });
}

export function kvDelete(c: Ctx, scope: string, key: string): boolean {
  requireName(key, 'key');
  return c.db.transaction(() => {
    readDocStrict(c, docNs(scope), key);
    return deleteDoc(c, docNs(scope), key);
  });
}

export function kvList(c: Ctx, scope: string): KvEntry[] {
  const out: KvEntry[] = [];
  for (const d of listDocs(c, docNs(scope))) {
    const e = entry(d.key, d.body, d.updatedAt);
    if (e) out.push(e);
  }
  return out;
}
