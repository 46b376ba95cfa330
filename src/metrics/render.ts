// The exposition text of one family (spec 06 §6.1), the same bytes prom-client's text renderer and
// `tidyExposition` make together, drawn from the series prom-client stores. A family whose values
// are kept up to date as state changes (no `collect()`) renders from its stored series with each
// series' label text made once and kept: a scrape formats numbers, not label sets. A family that
// reads the daemon at scrape time (`collect()`) goes through prom-client's renderer.
import type { Metric, Registry } from 'prom-client';
import { declaration, floatBound, tidyExposition } from './exposition.ts';

type Labels = Record<string, string | number>;
interface Series {
  labels: Labels;
  value: number;
}
interface Bucketed {
  labels: Labels;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}
interface Stored {
  name: string;
  help: string;
  type: string;
  hashMap: Record<string, Series | Bucketed>;
  upperBounds?: number[];
  collect?: unknown;
}

/** prom-client's number rendering. */
function valueText(v: number): string {
  if (Number.isNaN(v)) return 'Nan';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return `${v}`;
}

const escapeText = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
/** Label values also escape CR (spec 09 §8.2): a raw CR ends the line for many scrapers. */
const escapeLabel = (v: string | number) =>
  typeof v === 'string' ? escapeText(v).replace(/\r/g, '\\r').replace(/"/g, '\\"') : v;

function labelText(labels: Labels, first = ''): string {
  const parts = first ? [first] : [];
  for (const [k, v] of Object.entries(labels)) parts.push(`${k}="${escapeLabel(v)}"`);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

/** The label text of one stored series: for a histogram, its bucket, sum and count line heads. */
type Heads = string[];

export class FamilyText {
  /** Per family: each stored series' heads, by prom-client's key of its label set. */
  private readonly heads = new WeakMap<object, Map<string, Heads>>();

  constructor(private readonly registry: Registry) {}

  /** Whether the family reads the daemon when rendered (and so cannot be drawn from its store). */
  static live(metric: Metric<string>): boolean {
    return typeof (metric as unknown as Stored).collect === 'function';
  }

  async render(metric: Metric<string>, openMetrics: boolean): Promise<string> {
    const m = metric as unknown as Stored;
    if (FamilyText.live(metric))
      return tidyExposition(await this.registry.getSingleMetricAsString(m.name), openMetrics, false);
    const keys = Object.keys(m.hashMap);
    if (keys.length === 0) return '';
    let { declared, declaredType } = { declared: m.name, declaredType: m.type };
    if (openMetrics) ({ declared, declaredType } = declaration(m.name, m.type));
    const lines = [`# HELP ${declared} ${escapeText(m.help)}`, `# TYPE ${declared} ${declaredType}`];
    let known = this.heads.get(m);
    // Label sets of removed jobs are forgotten once they outnumber the live ones.
    if (!known || known.size > 2 * keys.length + 16) {
      known = new Map();
      this.heads.set(m, known);
    }
    for (const key of keys) {
      const series = m.hashMap[key]!;
      let heads = known.get(key);
      if (!heads) {
        heads = this.headsOf(m, series.labels);
        known.set(key, heads);
      }
      if ('bucketValues' in series) {
        const bounds = m.upperBounds!;
        let acc = 0;
        for (let i = 0; i < bounds.length; i++) {
          acc += series.bucketValues[bounds[i]!]!;
          lines.push(heads[i] + valueText(acc));
        }
        const n = bounds.length;
        lines.push(heads[n] + valueText(series.count), heads[n + 1] + valueText(series.sum));
        lines.push(heads[n + 2] + valueText(series.count));
      } else lines.push(heads[0] + valueText(series.value));
    }
    return `${lines.join('\n')}\n`;
  }

  private headsOf(m: Stored, labels: Labels): Heads {
    if (!m.upperBounds) return [`${m.name}${labelText(labels)} `];
    const bucket = (le: string) => floatBound(`${m.name}_bucket${labelText(labels, `le="${le}"`)} `);
    const own = labelText(labels);
    return [
      ...m.upperBounds.map((b) => bucket(valueText(b))),
      bucket('+Inf'),
      `${m.name}_sum${own} `,
      `${m.name}_count${own} `,
    ];
  }
}
