// Shared by the offline state-admin commands (./admin.ts, ./gc.ts, ./archive.ts): options,
// result shape, and the inline connection they all use.
import { openInlineExecutor, type ResolvedStorePlace, resolveStorePlace } from './index.ts';
import type { StoreOptions } from './types.ts';

export type AdminOptions = Pick<StoreOptions, 'path' | 'namespace' | 'topology' | 'writer' | 'now'>;

export interface AdminResult {
  ok: boolean;
  lines: string[];
}

export const plural = (n: number, word: string) => `${n} ${word}(s)`;
export const nsOf = (opts: AdminOptions) => opts.namespace || 'default';
export const nowSeconds = (opts: AdminOptions) => (opts.now ? opts.now() : Date.now()) / 1000;

export async function openAdmin(opts: AdminOptions, place?: ResolvedStorePlace) {
  const p = place ?? (await resolveStorePlace(opts));
  const inline = await openInlineExecutor(p.dir, p.topology, nsOf(opts), opts.writer ?? 'cronstable-admin');
  return { place: p, db: inline.executor.db, ...inline };
}

export function fail(message: string): AdminResult {
  return { ok: false, lines: [`cronstable state error: ${message}`] };
}
