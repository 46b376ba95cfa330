// Untrusted text on the terminal (spec 08 §6.4): only SGR survives, and no visible text around a removed
// sequence is lost (Q6). Property tests check that no output ever carries an escape other than SGR.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanLogLine, flatten, stripEscapes, visibleText } from '../../src/tui/text/sanitize.ts';
import { reink, Theme } from '../../src/tui/text/theme.ts';

const ESC = '\u001b';
const BEL = '\u0007';
const ST = `${ESC}\\`;

/** Every escape sequence left in `text` is an SGR. */
function onlySgr(text: string): boolean {
  const stripped = text.replace(/\u001b\[[0-9;]*m/g, '');
  return !/[\u001b\u0080-\u009f]/.test(stripped);
}

describe('stripEscapes', () => {
  const cases: Array<[string, string, string]> = [
    ['window title (OSC 0, BEL)', `${ESC}]0;pwned-title${BEL}title attempt`, 'title attempt'],
    ['window title (OSC 2, ST)', `a${ESC}]2;x${ST}b`, 'ab'],
    ['clipboard write (OSC 52)', `${ESC}]52;c;aGVsbG8=${BEL}clipboard attempt`, 'clipboard attempt'],
    ['hyperlink (OSC 8)', `${ESC}]8;;http://x${ST}link${ESC}]8;;${ST} text`, 'link text'],
    ['clear screen + home', `${ESC}[2J${ESC}[Hclear attempt`, 'clear attempt'],
    ['alt screen leave', `${ESC}[?1049lafter`, 'after'],
    ['cursor moves', `x${ESC}[10;20Hy${ESC}[3Az`, 'xyz'],
    ['DCS to ST', `a${ESC}Pq#0;2;0;0;0${ST}b`, 'ab'],
    ['APC, PM, SOS', `1${ESC}_apc${ST}2${ESC}^pm${ST}3${ESC}Xsos${ST}4`, '1234'],
    ['RIS', `before${ESC}cafter`, 'beforeafter'],
    ['charset and save/restore cursor', `${ESC}(0a${ESC}7b${ESC}8c${ESC}Md`, 'abcd'],
    ['bare trailing ESC', `text${ESC}`, 'text'],
    ['unterminated OSC runs to the end', `keep${ESC}]0;title never ends`, 'keep'],
    ['unterminated CSI keeps the rest', `a${ESC}[12`, 'a'],
    ['8-bit CSI', `a\u009b2Jb`, 'ab'],
    ['8-bit OSC to BEL', `a\u009d0;t${BEL}b`, 'ab'],
    ['8-bit DCS to 8-bit ST', `a\u0090data\u009cb`, 'ab'],
    ['OSC interrupted by another ESC sequence', `a${ESC}]0;t${ESC}[31mred`, 'ared'],
    ['private-mode CSI is not SGR', `a${ESC}[?25lb`, 'ab'],
  ];
  for (const [name, input, want] of cases) {
    it(`removes ${name}`, () => {
      expect(stripEscapes(input)).toBe(want);
      expect(visibleText(stripEscapes(input, true))).toBe(want);
    });
  }

  it('keeps SGR when asked, and only SGR', () => {
    const input = `${ESC}[1;33mWARN${ESC}[0m slow ${ESC}[2Kdisk`;
    expect(stripEscapes(input, true)).toBe(`${ESC}[1;33mWARN${ESC}[0m slow disk`);
    expect(stripEscapes(input)).toBe('WARN slow disk');
  });

  it('does not treat CSI with intermediates or colons as SGR', () => {
    expect(stripEscapes(`a${ESC}[38:2:1:2:3mb`, true)).toBe('ab');
    expect(stripEscapes(`a${ESC}[1 mb`, true)).toBe('ab');
  });

  it('leaves plain text, including CJK and emoji, untouched', () => {
    expect(stripEscapes('tab here 日本語 wide 🎉')).toBe('tab here 日本語 wide 🎉');
  });

  it('property: output never holds a non-SGR escape, and text without ESC passes unchanged', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(
        ESC,
        BEL,
        ST,
        '\u009b',
        '\u009d',
        '\u0090',
        '\u009c',
        '[',
        ']',
        ';',
        'm',
        '?',
        'P',
        '_',
      ),
      fc.constantFrom(`${ESC}[1m`, `${ESC}]0;x`, `${ESC}[2J`, `${ESC}P`, `${ESC}(`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        const text = parts.join('');
        return (
          onlySgr(stripEscapes(text, true)) &&
          onlySgr(cleanLogLine(text)) &&
          !/[\u001b\u0080-\u009f]/.test(stripEscapes(text))
        );
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        fc.pre(!/[\u001b\u0080-\u009f]/.test(text));
        return stripEscapes(text) === text;
      }),
    );
  });
});

describe('cleanLogLine (a line of job output on arrival)', () => {
  it('keeps the text after a BEL-terminated OSC (Q6)', () => {
    expect(cleanLogLine(`${ESC}]0;pwned-title${BEL}title attempt`)).toBe('title attempt');
    expect(cleanLogLine(`${ESC}]52;c;aGVsbG8=${BEL}clipboard attempt`)).toBe('clipboard attempt');
  });

  it('keeps the last non-empty carriage-return piece (progress bars, CRLF)', () => {
    expect(cleanLogLine('55%\r100% progress')).toBe('100% progress');
    expect(cleanLogLine('line\r')).toBe('line');
    expect(cleanLogLine(`done\r${ESC}[K`)).toBe('done');
  });

  it('expands tabs to 4 spaces and drops other controls', () => {
    expect(cleanLogLine('tab\there 日本語 wide')).toBe('tab    here 日本語 wide');
    expect(cleanLogLine(`a${BEL}b\u0000c\u007fd\u0085e`)).toBe('abcde');
  });

  it('removes bidi overrides and isolates', () => {
    expect(cleanLogLine('safe\u202etxt.exe\u2066x\u2069')).toBe('safetxt.exex');
  });

  it('keeps SGR for re-inking', () => {
    expect(cleanLogLine(`${ESC}[1;33mWARN${ESC}[0m slow disk`)).toBe(`${ESC}[1;33mWARN${ESC}[0m slow disk`);
    expect(visibleText(cleanLogLine(`${ESC}[1;33mWARN${ESC}[0m slow disk`))).toBe('WARN slow disk');
  });
});

describe('flatten (names, commands, toasts)', () => {
  it('folds whitespace and newlines and removes every escape', () => {
    expect(flatten(`echo one\n  echo\ttwo${ESC}[31m red${ESC}]0;t${BEL}`)).toBe('echo one echo two red');
  });
  it('a hostile job name cannot move the cursor or set a title', () => {
    const name = `evil${ESC}[2J${ESC}]0;owned${BEL}\r\nname\u009b31m`;
    expect(flatten(name)).toBe('evil name');
  });
});

describe('reink', () => {
  const theme = new Theme('carolina', '24');
  it('maps basic colours to theme roles and keeps bold', () => {
    const out = reink(`${ESC}[1;33mWARN${ESC}[0m slow disk`, theme, { fg: 'fg', bg: 'bg' });
    // 33 -> pending (carolina c9a94a = 201;169;74), bold
    expect(out).toContain('38;2;201;169;74');
    expect(out).toMatch(/\u001b\[0;1;38;2;201;169;74;48;2;6;19;29m/);
    expect(out).not.toContain(`${ESC}[33m`);
    expect(out).not.toContain(`${ESC}[1;33m`);
  });
  it('drops backgrounds and maps extended colours to bright', () => {
    const out = reink(`${ESC}[48;5;200;38;5;100mX`, theme, { fg: 'fg', bg: 'bg' });
    expect(out).toContain('38;2;211;236;253'); // bright
    expect(out).not.toContain('48;5');
  });
  it('a reset goes back to the theme colours, not the terminal defaults (Q8)', () => {
    const out = reink(`a${ESC}[0mb`, theme, { fg: 'fg', bg: 'bg' });
    expect(out).toContain('38;2;158;211;245;48;2;6;19;29');
  });
});
