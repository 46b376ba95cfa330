// Prometheus label values (spec 09 §8.2): backslash, LF, CR and `"` are escaped, on both render
// paths (a family drawn from its stored series, and a live family through prom-client's renderer);
// HELP text still escapes only backslash and LF.
import { describe, expect, it } from 'vitest';
import { Gauge, Registry } from '../../src/metrics/prom.ts';
import { FamilyText } from '../../src/metrics/render.ts';

const NAME = 'a\rb\\c\nd"e';
const ESCAPED = 'job_name="a\\rb\\\\c\\nd\\"e"';

describe('label values', () => {
  it('escape CR with the rest in a stored family', async () => {
    const registry = new Registry();
    const g = new Gauge({
      name: 'x_stored',
      help: 'h\\1\n2\r3',
      labelNames: ['job_name'],
      registers: [registry],
    });
    g.set({ job_name: NAME }, 1);
    const text = await new FamilyText(registry).render(g, false);
    expect(text).toBe(`# HELP x_stored h\\\\1\\n2\r3\n# TYPE x_stored gauge\nx_stored{${ESCAPED}} 1\n`);
  });

  it('escape CR with the rest in a live family', async () => {
    const registry = new Registry();
    const g = new Gauge({
      name: 'x_live',
      help: 'live',
      labelNames: ['job_name'],
      registers: [registry],
      collect() {
        this.set({ job_name: NAME }, 2);
      },
    });
    const text = await new FamilyText(registry).render(g, true);
    expect(text).toContain(`x_live{${ESCAPED}} 2\n`);
    expect(text).not.toMatch(/\r/);
  });
});
