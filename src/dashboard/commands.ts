// The command palette's action registry and its fuzzy ranking (pure). A view contributes actions by adding a
// source to the registry (one line at the call site); the palette lists every source's actions at open time.

export interface Command {
  /** stable id, unique across sources (`view.week`, `job.run:<name>`) */
  id: string;
  title: string;
  /** extra words the search matches but the list does not show */
  keywords?: string;
  /** the section the palette shows it under */
  group?: string;
  /** the keyboard shortcut, shown on the right */
  hint?: string;
  run(): void;
}

/** A source is asked for its actions each time the palette opens, so it can read fresh state. */
export type CommandSource = () => readonly Command[];

export class CommandRegistry {
  private readonly sources = new Map<string, CommandSource>();
  private version = 0;

  /** Registers (or replaces) the source under `key`; returns the function that removes it again. */
  register(key: string, source: CommandSource): () => void {
    this.sources.set(key, source);
    this.version++;
    return () => {
      if (this.sources.get(key) === source) {
        this.sources.delete(key);
        this.version++;
      }
    };
  }

  /** Changes whenever a source comes or goes. */
  get revision(): number {
    return this.version;
  }

  /** Every source's actions; a later id replaces an earlier one with the same id. */
  all(): Command[] {
    const byId = new Map<string, Command>();
    for (const source of this.sources.values()) for (const c of source()) byId.set(c.id, c);
    return [...byId.values()];
  }
}

const BOUNDARY = /[\s\-_./:·>]/;

/**
 * Subsequence match of `query` in `text`, case-insensitive. Higher is better; null when some query character
 * is missing. Rewards consecutive runs, matches at word starts and at the very start, and short texts.
 */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (q === '') return 0;
  const t = text.toLowerCase();
  // Greedy from each place the first character occurs (at most 8), keeping the best: the leftmost start is not
  // always the best one ("week" in "Show the week").
  let best: number | null = null;
  let from = t.indexOf(q[0]!);
  for (let tries = 0; from >= 0 && tries < 8; tries++) {
    const s = greedy(q, t, from);
    if (s === null) break;
    if (best === null || s > best) best = s;
    from = t.indexOf(q[0]!, from + 1);
  }
  if (best === null) return null;
  if (t.includes(q)) best += 8;
  return best - t.length * 0.02;
}

function greedy(q: string, t: string, start: number): number | null {
  let score = 0;
  let ti = start;
  let run = 0;
  for (let qi = 0; qi < q.length; qi++) {
    const at = t.indexOf(q[qi]!, ti);
    if (at < 0) return null;
    run = at === ti && qi > 0 ? run + 1 : 0;
    score += 1 + run * 3;
    if (at === 0) score += 6;
    else if (BOUNDARY.test(t[at - 1]!)) score += 4;
    if (qi > 0) score -= Math.min(3, at - ti) * 0.25;
    ti = at + 1;
  }
  return score;
}

/** Best matches first (ties keep registry order); an empty query keeps everything in order. */
export function rankCommands(commands: readonly Command[], query: string, limit = 50): Command[] {
  if (query.trim() === '') return commands.slice(0, limit);
  const scored: Array<{ c: Command; s: number; i: number }> = [];
  commands.forEach((c, i) => {
    const onTitle = fuzzyScore(query, c.title);
    const onKeywords = c.keywords ? fuzzyScore(query, c.keywords) : null;
    const s =
      onTitle === null
        ? onKeywords === null
          ? null
          : onKeywords - 2
        : Math.max(onTitle, (onKeywords ?? -1e9) - 2);
    if (s !== null) scored.push({ c, s, i });
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.slice(0, limit).map((x) => x.c);
}
