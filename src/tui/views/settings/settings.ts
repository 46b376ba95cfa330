// Settings (spec 08 §4.7): every preference on one panel, saved as soon as it changes. Opened from the
// palette. `←` steps back through a row's values ([better]: the reference cycles forward on both arrows).
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { CVD_CHOICES, POLL_CHOICES_MS, type Prefs, ZEN_IDLE_CHOICES } from '../../data/prefs.ts';
import { HUES } from '../../text/theme.ts';
import { addPaletteSource } from '../palette/palette.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View } from '../types.ts';

export interface SettingsSurface extends Surface {
  kind: 'settings';
  sel: number;
}

interface Row {
  label: string;
  show(p: Prefs): string;
  /** the next value one step in `dir` */
  step(p: Prefs, dir: 1 | -1): Partial<Prefs>;
}

function cycle<T>(list: readonly T[], v: T, dir: 1 | -1): T {
  const i = list.indexOf(v);
  return list[(Math.max(0, i) + dir + list.length) % list.length]!;
}

const onOff = (v: boolean) => (v ? 'on' : 'off');
const flag = (label: string, key: keyof Prefs, show: (v: boolean) => string = onOff): Row => ({
  label,
  show: (p) => show(p[key] as boolean),
  step: (p) => ({ [key]: !p[key] }) as Partial<Prefs>,
});

export const SETTINGS_ROWS: readonly Row[] = [
  { label: 'Theme', show: (p) => p.theme, step: (p, d) => ({ theme: cycle(HUES, p.theme, d) }) },
  flag('Light / dark', 'light', (v) => (v ? 'paper' : 'phosphor')),
  { label: 'Color vision', show: (p) => p.cvd, step: (p, d) => ({ cvd: cycle(CVD_CHOICES, p.cvd, d) }) },
  {
    label: 'Refresh interval',
    show: (p) => (p.poll_ms === 0 ? 'paused' : `${p.poll_ms / 1000} s`),
    step: (p, d) => ({ poll_ms: cycle(POLL_CHOICES_MS as readonly number[], p.poll_ms, d) }),
  },
  flag('Wrap log lines', 'wrap'),
  flag('Log timestamps', 'timestamps'),
  flag('Compact density', 'compact'),
  flag('Audible cues (bell)', 'sound'),
  flag('Zen screensaver', 'zen'),
  {
    label: 'Zen idle',
    show: (p) => `${p.zen_idle_s} s`,
    step: (p, d) => ({ zen_idle_s: cycle(ZEN_IDLE_CHOICES as readonly number[], p.zen_idle_s, d) }),
  },
  flag('Boot self-test', 'boot'),
  flag('ASCII glyphs', 'ascii'),
];

/** Applies one step of row `i`: saved at once; the poll interval and ASCII mode take effect now. */
export function changeSetting(ctl: Controller, i: number, dir: 1 | -1): void {
  const row = SETTINGS_ROWS[i];
  if (!row) return;
  const patch = row.step(ctl.state.prefs, dir);
  ctl.setPrefs(patch);
  if (patch.poll_ms !== undefined) {
    ctl.store.set({ pollMs: patch.poll_ms });
    ctl.wake();
  }
  if (patch.ascii !== undefined) ctl.store.set({ ascii: patch.ascii });
}

addPaletteSource((ctl) => [
  {
    id: 'settings',
    title: 'Open settings',
    group: 'actions',
    hint: '⚙',
    run: () => ctl.push({ kind: 'settings', sel: 0 } as SettingsSurface),
  },
]);

const WIDTH = 56;

export const settingsView: View<SettingsSurface> = {
  kind: 'settings',
  paint(st, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const p = ctx.s.prefs;
    const body = SETTINGS_ROWS.map((r, i) => {
      const on = i === st.sel;
      const bg = on ? 'sel' : 'bg';
      return bodyRow(ctx, inner, [
        [on ? `${ctx.g.marker} ` : '  ', { fg: 'accent', bg }],
        [r.label.padEnd(24), { fg: on ? 'bright' : 'fg', bg }],
        [r.show(p), { fg: 'accent', bg, bold: on }],
      ]);
    });
    body.push(bodyRow(ctx, inner, [['']]));
    body.push(
      bodyRow(ctx, inner, [[` prefs file: ${ctx.ctl.deps.prefsPath ?? '(not saved)'}`, { fg: 'dim' }]]),
    );
    return {
      placement: 'panel',
      title: 'settings',
      width: WIDTH,
      body,
      hint: 'j/k select · enter/space/→ next · ← back · esc close',
    };
  },
  key(st, key, ctx) {
    const { ctl } = ctx;
    const n = SETTINGS_ROWS.length;
    if (key.name === 'j' || key.name === 'down') ctl.update(st, { sel: (st.sel + 1) % n });
    else if (key.name === 'k' || key.name === 'up') ctl.update(st, { sel: (st.sel - 1 + n) % n });
    else if (key.name === 'enter' || key.name === ' ' || key.name === 'right') changeSetting(ctl, st.sel, 1);
    else if (key.name === 'left') changeSetting(ctl, st.sel, -1);
    return true;
  },
};
