// Board keys that views add (one line at their registration), so a new panel needs no edit of the board's own
// switch: the board hands any key it does not know to this table.
import type { Controller } from '../app/controller.ts';

export interface BoardKey {
  key: string;
  /** what the key does, for the help overlay */
  what: string;
  run(ctl: Controller): void;
}

const KEYS = new Map<string, BoardKey>();

export function addBoardKey(k: BoardKey): void {
  if (KEYS.has(k.key)) throw new Error(`board key '${k.key}' is taken`);
  KEYS.set(k.key, k);
}

export function boardKeyFor(name: string): BoardKey | undefined {
  return KEYS.get(name);
}
