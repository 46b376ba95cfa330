// The Ink root: subscribes to the store, composes the frame as rows of text, hands it to the painter (which
// sends only the rows that changed) and passes keys to the dispatcher. Ink renders no output of its own.
import { useInput } from 'ink';
import { useLayoutEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { ASCII, UNICODE } from '../text/glyphs.ts';
import { type Cvd, type Depth, Theme } from '../text/theme.ts';
import { VIEWS } from '../views/registry.ts';
import type { RenderCtx } from '../views/types.ts';
import type { Controller } from './controller.ts';
import { type DispatchHooks, dispatchKey } from './dispatch.ts';
import { composeFrame } from './frame.ts';
import { fromInk } from './keys.ts';
import type { Painter } from './painter.ts';

export interface AppProps {
  ctl: Controller;
  depth: Depth;
  hooks: DispatchHooks;
  painter: Painter;
}

export function App({ ctl, depth, hooks, painter }: AppProps) {
  const s = useSyncExternalStore(ctl.store.subscribe, ctl.store.get);
  const name = `${s.prefs.theme}${s.prefs.light ? '-light' : ''}`;
  const theme = useMemo(() => new Theme(name, depth, s.prefs.cvd as Cvd), [name, depth, s.prefs.cvd]);
  const ctx: RenderCtx = { s, theme, g: s.ascii ? ASCII : UNICODE, ctl, views: VIEWS };
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;
  useInput((input, key) => {
    for (const k of fromInk(input, key)) dispatchKey(ctl, k, hooks, ctxRef.current);
  });
  // A new theme, a wallboard toggle or the end of the boot self-test repaints every row from a cleared screen.
  const look = `${name}|${s.prefs.cvd}|${s.wallboard}|${s.ascii}|${s.boot === null}`;
  const lookRef = useRef(look);
  useLayoutEffect(() => {
    if (lookRef.current !== look) {
      lookRef.current = look;
      painter.invalidate();
    }
    painter.paint(composeFrame(ctx));
  });
  return null;
}
