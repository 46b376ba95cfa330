// ASCII mode's last pass (spec 08 §6.1 [better]): every finished row is folded to printable ASCII, so a view
// that draws a Unicode glyph of its own (an icon, a shade, a toast symbol) and text from the daemon (a CJK job
// name) still reach a terminal without Unicode as readable ASCII. Each character keeps its cell width, so
// columns and panel borders stay where the layout put them.
import { cellWidth } from './width.ts';

const MAP: Record<string, string> = {};
const put = (chars: string, to: string) => {
  for (const c of chars) MAP[c] = to;
};
// box drawing and rules
put('─━═╌┄', '-');
put('│┃║╎┆▕', '|');
put('┌┐└┘├┤┬┴┼╭╮╯╰╔╗╚╝╠╣╦╩╬', '+');
put('╴╶', ' ');
// bars, shades and blocks: ` .:-=+*#%@` from light to heavy
put('▁', '.');
put('▂░', ':');
put('▃', '-');
put('▄▒', '=');
put('▅', '+');
put('▆▓', '*');
put('▇█▪▮■▬▦▤▥◫⊞⧉⛁❏', '#');
// markers, arrows, pointers
put('▎▶►▸→⟶', '>');
put('◀◄◂←', '<');
put('↑▲▴', '^');
put('↓▼▾', 'v');
put('▏', '|');
put('▌', '_');
put('↻◴◉◆', '@');
// status and tone glyphs
put('◌', '-');
put('✕✗×', 'x');
put('⊘', '/');
put('◍⌕', '?');
put('●○◇◯', 'o');
put('◔', '.');
put('✓✔', '+');
put('⚠☢', '!');
put('◐◑•⚙', '*');
put('⌁♪∿', '~');
put('⚿', 'k');
put('⊟≡', '=');
put('☍', '&');
put('∅', '0');
// typography
put('…', '~');
put('·∙⋅', '.');
put('—–‒', '-');
put('‘’‚′', "'");
put('“”„″', '"');

/** One character's ASCII stand-in, as wide as it is. */
function fold(ch: string): string {
  const mapped = MAP[ch];
  if (mapped !== undefined) return mapped;
  const w = cellWidth(ch);
  return w === 0 ? '' : '?'.repeat(w);
}

/** The row with every non-ASCII character replaced (escape sequences are ASCII and pass through). */
export function asciiRow(row: string): string {
  if (/^[\u0000-\u007f]*$/.test(row)) return row;
  let out = '';
  for (const ch of row) out += ch.charCodeAt(0) < 0x80 ? ch : fold(ch);
  return out;
}
