// Points a semantic error at the key that caused it, looking through every map that
// contributed to a merged value (the job itself first, then the defaults it inherited).
import { type ConfigIssue, issueAt, type SourcePos } from './errors.ts';
import { locationOf } from './validators.ts';

export class Locator {
  constructor(
    private readonly origins: readonly object[],
    private readonly fallback: SourcePos,
  ) {}

  /** Position and key path of `keys` (e.g. ['onFailure', 'retry', 'maximumDelay']). */
  find(keys: readonly string[]): { pos: SourcePos; path: string } {
    for (const origin of this.origins) {
      let node: unknown = origin;
      let best: { pos: SourcePos; path: string } | undefined;
      for (let i = 0; i < keys.length; i++) {
        const loc = locationOf(node);
        const key = keys[i]!;
        if (!loc || typeof node !== 'object' || node === null || !(key in node)) break;
        const pos = loc.keys[key] ?? loc.pos;
        best = { pos, path: [loc.path, key].filter(Boolean).join('.') };
        node = (node as Record<string, unknown>)[key];
      }
      if (best) return best;
    }
    const loc = locationOf(this.origins[0]);
    return { pos: loc?.pos ?? this.fallback, path: [loc?.path, ...keys].filter(Boolean).join('.') };
  }

  issue(keys: readonly string[], message: string): ConfigIssue {
    const { pos, path } = this.find(keys);
    return issueAt(pos, path, message);
  }
}
