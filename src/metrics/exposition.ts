// The exposition text (spec 06 §6.1) around prom-client's renderer: family filtering, float `le`
// bounds, the OpenMetrics declarations, and series ordering.
import type { Metric } from 'prom-client';

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

type Labels = Record<string, string>;

/** prom-client keeps series in insertion order; per-job accumulators must be sorted by job name. */
export function sortSeries(metric: Metric<string>, rank: (labels: Labels) => string): void {
  const holder = metric as unknown as { hashMap?: Record<string, { labels?: Labels }> };
  const map = holder.hashMap;
  if (!map || typeof map !== 'object') return;
  const entries = Object.entries(map);
  entries.sort((a, b) => {
    const ka = rank(a[1].labels ?? {});
    const kb = rank(b[1].labels ?? {});
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  holder.hashMap = Object.fromEntries(entries);
}

export const byJob = (l: Labels) => l.job_name ?? '';
export const byJobStatus = (l: Labels) =>
  `${l.job_name ?? ''}\u0000${['success', 'failure', 'cancelled', 'skipped'].indexOf(l.status ?? '')}`;

/** Families modelled as gauges named `<base>_info`; OpenMetrics types them `info` under the base name. */
const INFO_FAMILIES = new Set([
  'cronstable_info',
  'cronstable_job_set_info',
  'cronstable_job_info',
  'cronstable_state_info',
  'cronstable_cluster_info',
  'cronstable_cluster_leader_info',
]);

/** How OpenMetrics declares a family: counters without `_total`, `<base>_info` gauges as `info`. */
export function declaration(family: string, type: string): { declared: string; declaredType: string } {
  if (INFO_FAMILIES.has(family)) return { declared: family.slice(0, -'_info'.length), declaredType: 'info' };
  if (type === 'counter' && family.endsWith('_total'))
    return { declared: family.slice(0, -'_total'.length), declaredType: type };
  return { declared: family, declaredType: type };
}

/** A sample line with its `le` bound as a float (`le="1"` becomes `le="1.0"`). */
export function floatBound(line: string): string {
  return line.replace(/([{,]le=")(-?\d+)(")/, '$1$2.0$3');
}

/**
 * Post-processes prom-client's text exposition (spec 06 §6.1): families without samples are
 * dropped, `le` bounds are rendered as floats (`"1.0"`), a CR in a label value is escaped (spec 09
 * §8.2), no blank lines; for OpenMetrics, counter families are declared without `_total`, info
 * families as `info` under their base name, and the body ends with `# EOF`. (prom-client's own OpenMetrics mode renames shared metrics in place.)
 */
export function tidyExposition(text: string, openMetrics = false, eof = openMetrics): string {
  const out: string[] = [];
  let block: string[] = [];
  let family = '';
  let type = '';
  let hasSample = false;
  const flush = () => {
    if (hasSample && block.length > 0) {
      if (openMetrics) {
        const { declared, declaredType } = declaration(family, type);
        if (declared !== family || declaredType !== type) {
          block = block.map((l) => {
            if (l.startsWith(`# HELP ${family} `)) return `# HELP ${declared} ${l.slice(8 + family.length)}`;
            if (l === `# TYPE ${family} ${type}`) return `# TYPE ${declared} ${declaredType}`;
            return l;
          });
        }
      }
      out.push(...block);
    }
    block = [];
    family = '';
    type = '';
    hasSample = false;
  };
  for (const line of text.split('\n')) {
    if (line === '' || line === '# EOF') continue;
    if (line.startsWith('# HELP ')) {
      flush();
      family = line.slice(7, line.indexOf(' ', 7) < 0 ? undefined : line.indexOf(' ', 7));
    } else if (line.startsWith('# TYPE ')) type = line.slice(line.lastIndexOf(' ') + 1);
    if (!line.startsWith('#')) {
      hasSample = true;
      // prom-client leaves a CR in a label value raw; a sample line can hold one nowhere else.
      block.push(floatBound(line.includes('\r') ? line.replace(/\r/g, '\\r') : line));
    } else block.push(line);
  }
  flush();
  if (eof) out.push('# EOF');
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** An unlabelled gauge/counter without a sample (prom-client would print 0): the family is omitted. */
export function clearSeries(metric: Metric<string>): void {
  const holder = metric as unknown as { hashMap?: Record<string, unknown> };
  if (holder.hashMap) holder.hashMap = {};
}
