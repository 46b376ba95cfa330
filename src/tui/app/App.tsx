// The Ink root: subscribes to the store, composes the frame as rows of text and hands keys to the dispatcher.
// Each row is its own memoised <Text>, so React re-renders only rows whose text changed.
import { Box, Text, useInput } from 'ink';
import { memo, useMemo, useRef, useSyncExternalStore } from 'react';
import { ASCII, UNICODE } from '../text/glyphs.ts';
import { type Cvd, type Depth, Theme } from '../text/theme.ts';
import type { RenderCtx } from '../views/types.ts';
import type { Controller } from './controller.ts';
import { type DispatchHooks, dispatchKey } from './dispatch.ts';
import { composeFrame } from './frame.ts';
import { fromInk } from './keys.ts';

export interface AppProps {
  ctl: Controller;
  depth: Depth;
  hooks: DispatchHooks;
  /** bumps when the terminal must be repainted in full (resize, resume): changes the frame's bytes */
  epoch?: number;
}

const Row = memo(function Row({ text }: { text: string }) {
  return <Text>{text}</Text>;
});

export function App({ ctl, depth, hooks }: AppProps) {
  const s = useSyncExternalStore(ctl.store.subscribe, ctl.store.get);
  const name = `${s.prefs.theme}${s.prefs.light ? '-light' : ''}`;
  const theme = useMemo(() => new Theme(name, depth, s.prefs.cvd as Cvd), [name, depth, s.prefs.cvd]);
  const ctx: RenderCtx = { s, theme, g: s.ascii ? ASCII : UNICODE, ctl };
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;
  useInput((input, key) => {
    for (const k of fromInk(input, key)) dispatchKey(ctl, k, hooks, ctxRef.current);
  });
  const rows = composeFrame(ctx);
  return (
    <Box flexDirection="column">
      {rows.map((r, i) => (
        <Row key={i} text={r} />
      ))}
    </Box>
  );
}
