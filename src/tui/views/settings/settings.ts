// Settings (spec 08 §4.7): one row per preference; `Enter`, `Space` and `→` step it to its next value, `←` to
// the previous one ([better]: the reference steps forward on both arrows), and the prefs file is written at
// once (never the token: it is not a preference). The body ends with the path.
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { CVD_CHOICES, POLL_CHOICES_MS, type Prefs, ZEN_IDLE_CHOICES } from '../../data/prefs.ts';
import { HUES } from '../../text/theme.ts';
import { fit } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View, ViewDescriptor } from '../types.ts';

export interface SettingsSurface extends Surface {
  kind: 'settings';
  sel: number;
}

const WIDTH = 56;

interface Setting {
  label: string;
  key: keyof Prefs;
  show(p: Prefs): string;
  next(p: Prefs, dir: 1 | -1): Prefs[keyof Prefs];
}

const onOff = (v: boolean) => (v ? 'on' : 'off');

/** One step through `list`; a value not in it steps to the first (`→`) or last (`←`) choice. */
function cycle<T>(list: readonly T[], v: T, dir: 1 | -1 = 1): T {
  const i = list.indexOf(v);
  if (i < 0) return dir === 1 ? list[0]! : list[list.length - 1]!;
  return list[(i + dir + list.length) % list.length]!;
}

function flag(label: string, key: keyof Prefs): Setting {
  return { label, key, show: (p) => onOff(p[key] as boolean), next: (p) => !p[key] };
}

export const SETTINGS: readonly Setting[] = [
  { label: 'Theme', key: 'theme', show: (p) => p.theme, next: (p, d) => cycle(HUES, p.theme, d) },
  {
    label: 'Light / dark',
    key: 'light',
    show: (p) => (p.light ? 'paper' : 'phosphor'),
    next: (p) => !p.light,
  },
  { label: 'Color vision', key: 'cvd', show: (p) => p.cvd, next: (p, d) => cycle(CVD_CHOICES, p.cvd, d) },
  {
    label: 'Refresh interval',
    key: 'poll_ms',
    show: (p) => (p.poll_ms === 0 ? 'paused' : `${p.poll_ms / 1000} s`),
    // An unlisted value (indexOf -1) steps to the first choice, 1 s.
    next: (p, d) => cycle(POLL_CHOICES_MS, p.poll_ms as (typeof POLL_CHOICES_MS)[number], d),
  },
  flag('Wrap log lines', 'wrap'),
  flag('Log timestamps', 'timestamps'),
  flag('Compact density', 'compact'),
  flag('Audible cues (bell)', 'sound'),
  flag('Zen screensaver', 'zen'),
  {
    label: 'Zen idle',
    key: 'zen_idle_s',
    show: (p) => `${p.zen_idle_s} s`,
    next: (p, d) => cycle(ZEN_IDLE_CHOICES, p.zen_idle_s as (typeof ZEN_IDLE_CHOICES)[number], d),
  },
  flag('Boot self-test', 'boot'),
  flag('ASCII glyphs', 'ascii'),
];

/** Steps one setting and saves; the poll interval and ASCII mode take effect at once. */
export function stepSetting(ctl: Controller, row: Setting, dir: 1 | -1 = 1): void {
  const value = row.next(ctl.state.prefs, dir);
  ctl.setPrefs({ [row.key]: value } as Partial<Prefs>);
  if (row.key === 'poll_ms') {
    ctl.store.set({ pollMs: value as number });
    ctl.wake();
  }
  if (row.key === 'ascii') ctl.store.set({ ascii: value as boolean });
}

export const settingsView: View<SettingsSurface> = {
  kind: 'settings',
  paint(st, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const p = ctx.s.prefs;
    const body = SETTINGS.map((row, i) => {
      const on = i === st.sel;
      const bg = on ? 'sel' : 'bg';
      return bodyRow(ctx, inner, [
        [on ? `${ctx.g.marker} ` : '  ', { fg: 'accent', bg }],
        [fit(row.label, 24), { fg: on ? 'bright' : 'fg', bg }],
        [row.show(p), { fg: 'accent', bg, bold: on }],
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
      hint: 'j/k select · enter/space/→ next · ← prev · esc close',
    };
  },
  key(st, key, { ctl }) {
    // the selection wraps, like the board's
    switch (key.name) {
      case 'j':
      case 'down':
        ctl.update(st, { sel: (st.sel + 1) % SETTINGS.length });
        break;
      case 'k':
      case 'up':
        ctl.update(st, { sel: (st.sel - 1 + SETTINGS.length) % SETTINGS.length });
        break;
      case 'enter':
      case ' ':
      case 'right':
        stepSetting(ctl, SETTINGS[st.sel]!);
        break;
      case 'left':
        stepSetting(ctl, SETTINGS[st.sel]!, -1);
        break;
    }
    return true;
  },
};

export const settingsDescriptor: ViewDescriptor = {
  folder: 'settings',
  surfaces: [settingsView],
  palette: ({ ctl }) => [
    command('settings', 'Open settings', '⚙', () =>
      ctl.push({ kind: 'settings', sel: 0 } as SettingsSurface),
    ),
  ],
};
