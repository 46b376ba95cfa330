// `web.bonjour` (spec 10 §6.6): `true`, or `{enabled, name}` with `enabled` defaulting to true.
// The shape and its one load rule; the advertising itself lives in web/bonjour.ts.
import { bool, map, str, union } from './validators.ts';

export const bonjourSchema = union(bool(), map({ enabled: bool(), name: str() }));

/** The parts of the web section these rules read (file-schema.ts imports this module). */
interface WebBonjourPart {
  bonjour?: boolean | { enabled?: boolean; name?: string };
  listen: readonly string[];
}

/** What to advertise under, or null when `web.bonjour` is absent or off. */
export function bonjourSettings(web: Pick<WebBonjourPart, 'bonjour'>): { name: string | null } | null {
  const b = web.bonjour;
  if (b === undefined || b === false) return null;
  if (b === true) return { name: null };
  if (b.enabled === false) return null;
  return { name: b.name ?? null };
}

/** The load errors of `web.bonjour`, keyed at `bonjour`. */
export function bonjourProblems(web: WebBonjourPart): string[] {
  if (bonjourSettings(web) === null) return [];
  // An empty list turns the web API off, so there is nothing to advertise and nothing to blame.
  if (web.listen.length > 0 && web.listen.every((l) => l.toLowerCase().startsWith('unix://')))
    return ['web.bonjour needs a TCP web listener to advertise, but every web.listen entry is a unix socket'];
  return [];
}
