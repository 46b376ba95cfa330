// Next fire per row for the countdowns (src/dashboard/board.ts rollNextFire), its cache dropped with every new
// `/jobs` answer.
import { useCallback, useEffect, useRef } from 'preact/hooks';
import { rollNextFire } from '../../dashboard/board.ts';
import type { Row } from '../../dashboard/table.ts';

export function useNextFire(fetchedAt: number): (row: Row, now: number) => number | null {
  const rolled = useRef(new Map<string, number | null>());
  useEffect(() => rolled.current.clear(), [fetchedAt]);
  return useCallback((row: Row, t: number) => rollNextFire(row, t, rolled.current), []);
}
