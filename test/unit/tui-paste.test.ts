// Bracketed paste (spec 08 §5, Q25): the splitter that cuts input reads into typed bytes and pasted
// text (markers split across reads included), and where a paste lands (only a focused input). The
// dashboard's UTC times (Q11) need the process's local zone switched: test/integration/local-zone.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatchPaste, PASTE_END, PASTE_START, PasteSplitter } from '../../src/tui/app/paste.ts';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

describe('PasteSplitter', () => {
  it('passes typed bytes through untouched, Ctrl-U and text in one read included', () => {
    const p = new PasteSplitter();
    expect(p.push('\u0015beat')).toEqual([{ paste: false, text: '\u0015beat' }]);
    expect(p.push('\u001b')).toEqual([{ paste: false, text: '\u001b' }]);
    expect(p.push('\u001b[A')).toEqual([{ paste: false, text: '\u001b[A' }]);
  });

  it('cuts a paste out of the keys around it, in order', () => {
    const p = new PasteSplitter();
    expect(p.push(`/${PASTE_START}rq\n${PASTE_END}x`)).toEqual([
      { paste: false, text: '/' },
      { paste: true, text: 'rq\n' },
      { paste: false, text: 'x' },
    ]);
  });

  it('holds a paste until its end marker, markers cut across reads included', () => {
    const p = new PasteSplitter();
    expect(p.push('a\u001b[20')).toEqual([{ paste: false, text: 'a' }]);
    expect(p.push('0~run: ')).toEqual([]);
    expect(p.push('report\u001b[2')).toEqual([]);
    expect(p.push('01~b')).toEqual([
      { paste: true, text: 'run: report' },
      { paste: false, text: 'b' },
    ]);
  });

  it('keeps escape sequences inside a paste as pasted text', () => {
    const p = new PasteSplitter();
    expect(p.push(`${PASTE_START}\u001b[31mred\u001b[0m${PASTE_END}`)).toEqual([
      { paste: true, text: '\u001b[31mred\u001b[0m' },
    ]);
  });
});

describe('dispatchPaste', () => {
  const daemon = new FixtureDaemon();
  beforeAll(() => daemon.start());
  afterAll(() => daemon.stop());
  let h: Harness;
  afterEach(() => h?.close());

  it('on the bare board a paste does nothing: no run, no quit, no wallboard', async () => {
    h = mountTui(daemon);
    const before = h.store.get();
    dispatchPaste(h.ctl, 'rqw');
    await h.settle(50);
    expect(daemon.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(h.store.get().wallboard).toBe(false);
    expect(h.store.get().stack).toEqual(before.stack);
  });

  it('types into the focused filter, flattened, escapes removed', async () => {
    h = mountTui(daemon);
    await h.press('/');
    dispatchPaste(h.ctl, '  \u001b[31mnight\nly\u001b[0m\n');
    await h.settle(50);
    expect(h.store.get().filter).toBe('night ly');
    expect(h.store.get().filterFocused).toBe(true);
  });

  it('types into the palette query and the token prompt', async () => {
    h = mountTui(daemon);
    await h.press(KEY.ctrlK);
    dispatchPaste(h.ctl, 'run: rep');
    await h.settle(50);
    expect(h.text()).toContain('⌕ run: rep▌');
    expect(h.text()).toContain('Run: report-daily');
    await h.press(KEY.esc);
    h.ctl.push({ kind: 'token', text: '' } as Parameters<typeof h.ctl.push>[0]);
    dispatchPaste(h.ctl, 's3cret\n');
    await h.settle(50);
    expect(h.text()).toContain('••••••▌');
    expect((h.store.get().stack.at(-1) as unknown as { text: string }).text).toBe('s3cret');
  });

  it('on the wallboard it is ignored', async () => {
    h = mountTui(daemon, { wallboard: true });
    dispatchPaste(h.ctl, 'w');
    await h.settle(50);
    expect(h.store.get().wallboard).toBe(true);
  });
});
