// Themes (spec 08 §6.2), colour depth (§6.3) and SGR for styled spans. Every span sets the theme's foreground
// and background itself (Q8), so a light theme stays readable in a dark terminal and a job's own reset cannot
// drop the background for the rest of a line.

// `standard` first: the default (spec 10 §5.3), then the order of the pickers and the `t` cycler.
export const HUES = ['standard', 'carolina', 'amber', 'green', 'modern'] as const;
export type Hue = (typeof HUES)[number];
export const THEME_NAMES: readonly string[] = HUES.flatMap((h) => [h, `${h}-light`]);

export type Role =
  | 'bg'
  | 'fg'
  | 'bright'
  | 'dim'
  | 'accent'
  | 'border'
  | 'sel'
  | 'ok'
  | 'fail'
  | 'run'
  | 'pending'
  | 'warn'
  | 'off';

const ROLES: readonly Role[] = [
  'bg',
  'fg',
  'bright',
  'dim',
  'accent',
  'border',
  'sel',
  'ok',
  'fail',
  'run',
  'pending',
  'warn',
  'off',
];

/** Per hue, each role's dark ("phosphor") and light ("paper") colour, in ROLES order. */
const TABLE: Record<Hue, readonly (readonly [string, string])[]> = {
  carolina: pairs(
    '06131d eef4f9 9ed3f5 173751 d3ecfd 0a2437 3f6d8c 6d8ba1 4b9cd3 20618f 1d4056 b9cedd 12324a cfe2f0 37d495 0d7a4f ff5d5d c22929 4b9cd3 20618f c9a94a 8a6d1c ffb64a a05e00 3f5b6e 8aa0b1',
  ),
  amber: pairs(
    '160d02 faf3e4 f5c169 4a3510 ffe3ad 2d1f05 8a6a34 9a8557 ffb000 9a6b00 4d3510 e0d0a8 3a2a0c f0e2bd 8fd44a 3d7a0d ff5d43 c23415 ffb000 9a6b00 c9a94a 8a6d1c ffcf6a a05e00 6e5a35 a8956a',
  ),
  green: pairs(
    '03130a eef8f0 7ee2a1 123a22 c8f7d8 07230f 37744e 5f8f70 33ff66 0e7a33 124d28 b6dcc2 0c3a1e cdeccf 33ff66 0e7a33 ff6e5d c22f18 57d9ff 106a8a c9c94a 7a7a10 ffd24a a05e00 3f6e51 7fa38c',
  ),
  modern: pairs(
    '101418 f7f9fb d7dde3 22303c ffffff 101418 788591 7d8b98 5aa7e8 1d6cb0 2a343d d4dde4 22303c dbe7f1 4cc38a 177a4c f2555a c62f34 5aa7e8 1d6cb0 d6a648 8a6d1c f0a13c a05e00 5c6770 93a1ad',
  ),
  standard: pairs(
    '000000 ffffff c0c0c0 1f1f1f ffffff 000000 707070 767676 3b78ff 0037da 3a3a3a d0d0d0 264f78 cde5ff 16c60c 107c10 e74856 c42b1c 3b78ff 0037da c19c00 805b00 f9f1a5 9d5d00 767676 909090',
  ),
};

function pairs(text: string): Array<readonly [string, string]> {
  const v = text.split(' ');
  const out: Array<readonly [string, string]> = [];
  for (let i = 0; i < v.length; i += 2) out.push([v[i]!, v[i + 1]!]);
  return out;
}

export type Cvd = 'none' | 'deutan' | 'tritan';
const CVD: Record<Exclude<Cvd, 'none'>, Partial<Record<Role, string>>> = {
  deutan: { ok: '4aa8ff', fail: 'ffb000', pending: 'c8c8c8' },
  tritan: { ok: '4cc38a', fail: 'ff5d8a', pending: 'c8c8c8' },
};

export type Depth = 'none' | '16' | '256' | '24';

/** The terminal's colour depth from the environment (§6.3, first match wins). */
export function colourDepth(env: NodeJS.ProcessEnv): Depth {
  if (env.NO_COLOR) return 'none';
  if (env.TERM === 'dumb') return 'none';
  const ct = (env.COLORTERM ?? '').toLowerCase();
  if (ct === 'truecolor' || ct === '24bit') return '24';
  if ((env.TERM ?? '').includes('256color')) return '256';
  return '16';
}

export function parseThemeName(name: string): { hue: Hue; light: boolean } | null {
  const light = name.endsWith('-light');
  const hue = (light ? name.slice(0, -'-light'.length) : name) as Hue;
  return HUES.includes(hue) ? { hue, light } : null;
}

type Rgb = readonly [number, number, number];

const rgbOf = (hex: string): Rgb => [
  Number.parseInt(hex.slice(0, 2), 16),
  Number.parseInt(hex.slice(2, 4), 16),
  Number.parseInt(hex.slice(4, 6), 16),
];

/** The xterm 16 colours, for the nearest-colour fallback. */
const ANSI16: readonly Rgb[] = [
  [0, 0, 0],
  [205, 0, 0],
  [0, 205, 0],
  [205, 205, 0],
  [0, 0, 238],
  [205, 0, 205],
  [0, 205, 205],
  [229, 229, 229],
  [127, 127, 127],
  [255, 0, 0],
  [0, 255, 0],
  [255, 255, 0],
  [92, 92, 255],
  [255, 0, 255],
  [0, 255, 255],
  [255, 255, 255],
];

const dist = (a: Rgb, b: Rgb): number => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;

function nearest256(c: Rgb): number {
  const level = (v: number) => (v < 48 ? 0 : v < 115 ? 1 : Math.floor((v - 35) / 40));
  const steps = [0, 95, 135, 175, 215, 255];
  const [r, g, b] = [level(c[0]), level(c[1]), level(c[2])];
  const cube: Rgb = [steps[r]!, steps[g]!, steps[b]!];
  const grey = Math.min(23, Math.max(0, Math.round(((c[0] + c[1] + c[2]) / 3 - 8) / 10)));
  const gv = 8 + grey * 10;
  return dist(c, cube) <= dist(c, [gv, gv, gv]) ? 16 + 36 * r + 6 * g + b : 232 + grey;
}

function nearest16(c: Rgb): number {
  let best = 0;
  for (let i = 1; i < 16; i++) if (dist(c, ANSI16[i]!) < dist(c, ANSI16[best]!)) best = i;
  return best;
}

/** SGR parameters of a colour as foreground (`bg` false) or background. */
function colourParams(hex: string, depth: Depth, bg: boolean): string {
  const c = rgbOf(hex);
  if (depth === '24') return `${bg ? 48 : 38};2;${c[0]};${c[1]};${c[2]}`;
  if (depth === '256') return `${bg ? 48 : 38};5;${nearest256(c)}`;
  const n = nearest16(c);
  return String((n < 8 ? 30 : 82) + n + (bg ? 10 : 0));
}

export interface Style {
  fg?: Role;
  bg?: Role;
  bold?: boolean;
  dim?: boolean;
}

/** A resolved theme: SGR strings per style, cached, for one colour depth. */
export class Theme {
  readonly name: string;
  readonly depth: Depth;
  private readonly colours: Record<Role, string>;
  private readonly cache = new Map<string, string>();

  constructor(name: string, depth: Depth, cvd: Cvd = 'none') {
    const parsed = parseThemeName(name) ?? { hue: 'standard' as Hue, light: false };
    this.name = name;
    this.depth = depth;
    const rows = TABLE[parsed.hue];
    const colours = {} as Record<Role, string>;
    ROLES.forEach((role, i) => {
      colours[role] = rows[i]![parsed.light ? 1 : 0];
    });
    if (cvd !== 'none') Object.assign(colours, CVD[cvd]);
    this.colours = colours;
  }

  hex(role: Role): string {
    return this.colours[role];
  }

  /** The SGR that starts a span of this style (a full reset first, so no attribute leaks in). */
  sgr(style: Style): string {
    const key = `${style.fg ?? 'fg'}|${style.bg ?? 'bg'}|${style.bold ? 1 : 0}|${style.dim ? 1 : 0}`;
    let out = this.cache.get(key);
    if (out !== undefined) return out;
    const params = ['0'];
    if (style.bold) params.push('1');
    if (style.dim) params.push('2');
    if (this.depth === 'none') {
      // No colour: the selection background becomes reverse video, everything else plain.
      if (
        style.bg === 'sel' ||
        style.bg === 'fail' ||
        style.bg === 'warn' ||
        style.bg === 'ok' ||
        style.bg === 'accent'
      )
        params.push('7');
      if (style.fg === 'dim' || style.fg === 'border' || style.fg === 'off') params.push('2');
    } else {
      params.push(colourParams(this.colours[style.fg ?? 'fg'], this.depth, false));
      params.push(colourParams(this.colours[style.bg ?? 'bg'], this.depth, true));
    }
    out = `\u001b[${params.join(';')}m`;
    this.cache.set(key, out);
    return out;
  }

  paint(text: string, style: Style): string {
    return this.sgr(style) + text;
  }
}

/** Ends a row: back to the terminal's defaults. */
export const RESET = '\u001b[0m';

const SGR_IN_TEXT = /\u001b\[([0-9;]*)m/g;
const BASIC: readonly Role[] = ['dim', 'fail', 'ok', 'pending', 'run', 'accent', 'run', 'fg'];
const BRIGHT: readonly Role[] = ['dim', 'fail', 'ok', 'warn', 'run', 'accent', 'bright', 'bright'];

/**
 * Re-inks a cleaned log line's SGR sequences into theme roles (§6.4): the basic and bright colours map to
 * roles, 256/true colours to `bright`, bold/italic/underline/reverse are kept, backgrounds and the rest go.
 * `base` is the style of unstyled text (the pane's foreground on the row's background).
 */
export function reink(line: string, theme: Theme, base: Style): string {
  if (!line.includes('\u001b')) return line;
  let fg: Role = base.fg ?? 'fg';
  let bold = base.bold ?? false;
  let dim = false;
  let extra = '';
  return line.replace(SGR_IN_TEXT, (_m, body: string) => {
    const codes = body === '' ? [0] : body.split(';').map((c) => (c === '' ? 0 : Number(c)));
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      if (c === 0) {
        fg = base.fg ?? 'fg';
        bold = base.bold ?? false;
        dim = false;
        extra = '';
      } else if (c === 1) bold = true;
      else if (c === 2) dim = true;
      else if (c === 22) {
        bold = false;
        dim = false;
      } else if (c === 3 || c === 4 || c === 7) extra += `;${c}`;
      else if (c === 23 || c === 24 || c === 27) extra = extra.replace(`;${c - 20}`, '');
      else if (c >= 30 && c <= 37) fg = BASIC[c - 30]!;
      else if (c >= 90 && c <= 97) fg = BRIGHT[c - 90]!;
      else if (c === 39) fg = base.fg ?? 'fg';
      else if (c === 38 || c === 48) {
        // 38;5;n / 38;2;r;g;b: any extended foreground reads as "bright"; backgrounds are dropped.
        if (c === 38) fg = 'bright';
        i += codes[i + 1] === 5 ? 2 : codes[i + 1] === 2 ? 4 : 1;
      }
    }
    const sgr = theme.sgr({ fg, bg: base.bg ?? 'bg', bold, dim });
    return extra === '' ? sgr : `${sgr.slice(0, -1)}${extra}m`;
  });
}
