// The access-token modal (spec 08 §4.8): opens on a 401 or from the palette; the token is kept in memory for
// this run only and shown as one dot per character.
import type { Surface } from '../../app/state.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, View, ViewDescriptor } from '../types.ts';

export interface TokenSurface extends Surface {
  kind: 'token';
  text: string;
}

const WIDTH = 56;

export const tokenView: View<TokenSurface> = {
  kind: 'token',
  focused: () => true,
  paint(t, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const g = ctx.g;
    return {
      placement: 'panel',
      title: 'access token',
      width: WIDTH,
      body: [
        bodyRow(ctx, inner, [['The daemon wants a bearer token.', { fg: 'fg' }]]),
        bodyRow(ctx, inner, [['It is kept only for this run, never written to disk.', { fg: 'dim' }]]),
        bodyRow(ctx, inner, [['']]),
        bodyRow(ctx, inner, [
          ['⚿ ', { fg: 'accent' }],
          [g.secret.repeat([...t.text].length) + g.cursor, { fg: 'bright' }],
        ]),
      ],
      hint: 'enter save · esc cancel',
    };
  },
  key(t, key, ctx) {
    const { ctl } = ctx;
    if (key.name === 'enter') {
      ctl.close('token');
      ctl.setToken(t.text);
    } else if (key.name === 'backspace') ctl.update(t, { text: [...t.text].slice(0, -1).join('') });
    else if (key.ctrl && key.name === 'u') ctl.update(t, { text: '' });
    else if (key.text !== '') ctl.update(t, { text: t.text + key.text });
    return true;
  },
};

export const tokenDescriptor: ViewDescriptor = {
  folder: 'token',
  surfaces: [tokenView],
  palette: ({ ctl }) => [
    command('token', 'Set access token', '⚿', () => ctl.push({ kind: 'token', text: '' } as TokenSurface)),
  ],
};
