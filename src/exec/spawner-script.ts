// The program of the spawner process, which lives in spawner.pl (where `perl -c` checks it, in
// `npm run check`; the frames it speaks are described there). The bundle carries its text inline:
// scripts/build.mjs defines __SPAWNER_PL__ as it, so dist/ and the Bun binary need no file beside
// them. Run from the source tree (tsx, vitest), it is read from beside this module on first use.
import { readFileSync } from 'node:fs';

declare const __SPAWNER_PL__: string | undefined;

let fromSource: string | null = null;

/** The text of spawner.pl, for `perl -e`. */
export function spawnerScript(): string {
  if (typeof __SPAWNER_PL__ === 'string') return __SPAWNER_PL__;
  fromSource ??= readFileSync(new URL('./spawner.pl', import.meta.url), 'utf8');
  return fromSource;
}
