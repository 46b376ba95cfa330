// Finding an open surface again after an await: surfaces are immutable snapshots replaced on every update, so
// an async answer patches whatever surface of its kind is open now (or nothing, once it closed).
import type { Controller } from '../app/controller.ts';
import type { Surface } from '../app/state.ts';

export function findSurface<S extends Surface>(ctl: Controller, kind: S['kind']): S | undefined {
  return ctl.state.stack.find((x): x is S => x.kind === kind);
}

/** Patches the open surface of `kind`, if any (and if `when` agrees). */
export function patchSurface<S extends Surface>(
  ctl: Controller,
  kind: S['kind'],
  patch: Partial<S> | ((s: S) => Partial<S>),
  when: (s: S) => boolean = () => true,
): void {
  const cur = findSurface<S>(ctl, kind);
  if (cur && when(cur)) ctl.update(cur, typeof patch === 'function' ? patch(cur) : patch);
}

/** The largest scroll each surface kind allowed at its last paint, so scroll keys stop at the end at once
 * (instead of counting on past it and needing as many presses back). */
const scrollMax = new Map<string, number>();

/** Paint: the rows this surface has beyond what fits. */
export function noteScrollMax(kind: string, max: number): void {
  scrollMax.set(kind, Math.max(0, max));
}

/** Key: a scroll of `kind` kept within [0, its last painted maximum]. */
export function clampScroll(kind: string, scroll: number): number {
  return Math.max(0, Math.min(scrollMax.get(kind) ?? Number.MAX_SAFE_INTEGER, scroll));
}

/** Moves a selection by `delta`, clamped to [0, n). */
export const clampSel = (sel: number, delta: number, n: number): number =>
  Math.max(0, Math.min(Math.max(0, n - 1), sel + delta));

/** The tab `←`/`Shift-Tab` or `→`/`Tab` moves to (wrapping), or null for any other key. */
export function cycleTab<T extends string>(tabs: readonly T[], current: T, keyName: string): T | null {
  const dir =
    keyName === 'left' || keyName === 'backtab' ? -1 : keyName === 'right' || keyName === 'tab' ? 1 : 0;
  if (dir === 0) return null;
  return tabs[(tabs.indexOf(current) + dir + tabs.length) % tabs.length]!;
}
