// Log search: plain (case-insensitive) or regular-expression matching with highlight ranges.
import { errorText } from '../util/errors.ts';

export interface Matcher {
  /** [start, end) ranges of every match in the text */
  ranges(text: string): Array<[number, number]>;
  error: string | null;
}

const NONE: Matcher = { ranges: () => [], error: null };

export function compileSearch(query: string, regex: boolean): Matcher {
  if (query === '') return NONE;
  if (regex) {
    let re: RegExp;
    try {
      re = new RegExp(query, 'gi');
    } catch (err) {
      return { ranges: () => [], error: errorText(err) };
    }
    return {
      error: null,
      ranges(text) {
        const out: Array<[number, number]> = [];
        re.lastIndex = 0;
        for (let m = re.exec(text); m !== null; m = re.exec(text)) {
          if (m[0].length === 0) {
            re.lastIndex++;
            continue;
          }
          out.push([m.index, m.index + m[0].length]);
        }
        return out;
      },
    };
  }
  const needle = query.toLowerCase();
  return {
    error: null,
    ranges(text) {
      const hay = text.toLowerCase();
      const out: Array<[number, number]> = [];
      for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
        out.push([i, i + needle.length]);
      }
      return out;
    },
  };
}
