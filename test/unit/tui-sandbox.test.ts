// The cron sandbox (spec 08 §4.12): live evaluation as you type (every key types, `q` too), the engine's
// verdict, next fires in the chosen zone, `H` with a seed, the lint findings, Tab between fields, Esc closes.
import { describe, expect, it } from 'vitest';
import { type Harness, KEY } from '../helpers/tui-fixture.ts';
import { panelSuite } from '../helpers/tui-panel-fixtures.ts';

const { mount } = panelSuite();

let h: Harness;

const type = (text: string) => h.press(...text);

describe('cron sandbox', () => {
  it('opens on a sample, evaluates as you type, and every key types (q too)', async () => {
    h = mount({ rows: 40 });
    await h.press('E');
    let t = h.text();
    expect(t).toContain('╴cron sandbox╶');
    expect(t).toContain('◴ */15 9-17 * * mon-fri▌');
    expect(t).toContain('Every 15 minutes');
    expect(t).toContain('next fires (UTC):');
    expect(t).toMatch(/Mon 2026-07-06 09:00:00\s+in 24h/);
    await h.press(KEY.ctrlU);
    expect(h.text()).toContain('type a cron expression');
    await type('0 q');
    t = h.text();
    expect(t).toContain('◴ 0 q▌');
    expect(t).toContain('the engine rejects it:');
    expect(h.store.get().stack.map((s) => s.kind)).toEqual(['sandbox']);
    await h.press(KEY.backspace, KEY.backspace);
    await type(' 3 * * *');
    expect(h.text()).toMatch(/At 03:00/i);
    expect(h.text()).toMatch(/Mon 2026-07-06 03:00:00/);
  });

  it('Tab moves to the zone and the seed; H resolves with the seed; lint findings show', async () => {
    h = mount({ rows: 40 });
    await h.press('E', KEY.ctrlU);
    await type('H 3 * * *');
    await h.press(KEY.tab, KEY.ctrlU);
    await type('America/New_York');
    await h.press(KEY.tab);
    await type('backup');
    const t = h.text();
    expect(t).toContain('next fires (America/New_York):');
    expect(t).toMatch(/H resolves to \d+ 3 \* \* \* \(a per-job hash of 'backup'\)/);
    expect(t).toContain('seed backup▌');
    await h.press(KEY.tab, KEY.ctrlU);
    await type('0 0 31 2 *');
    expect(h.text()).toContain('this schedule never fires');
    expect(h.text()).toMatch(/⚠ .*(never|February)/);
    await h.press(KEY.esc);
    expect(h.store.get().stack).toEqual([]);
  });

  it('opens from the palette', async () => {
    h = mount();
    await h.press(KEY.ctrlK, ...'sandbox', KEY.enter);
    expect(h.text()).toContain('╴cron sandbox╶');
  });
});
