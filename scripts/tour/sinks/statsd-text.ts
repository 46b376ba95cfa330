// The statsd line protocol in, Prometheus text out: the pure half of the tour's statsd sink
// (the Docker tour runs prom/statsd-exporter; this follows its default mapping: dots become
// underscores, timers are observed in seconds as summaries).

export type StatsdType = 'c' | 'g' | 'ms' | 'h' | 'd' | 's';

export interface StatsdSample {
  name: string;
  value: number;
  type: StatsdType;
  /** `@0.1` -> 0.1; 1 when absent. */
  rate: number;
  /** A gauge written as `+N` / `-N` adjusts the current value instead of setting it. */
  delta: boolean;
  /** For sets: the member as written. */
  raw: string;
}

export interface StatsdParse {
  samples: StatsdSample[];
  /** Lines that are not statsd, with why (kept for the sink's log, never thrown). */
  rejected: { line: string; why: string }[];
}

const TYPES = new Set<string>(['c', 'g', 'ms', 'h', 'd', 's']);

/** Parses one datagram (one metric per line; a line may carry several `:value` parts). */
export function parseStatsd(datagram: string): StatsdParse {
  const out: StatsdParse = { samples: [], rejected: [] };
  for (const raw of datagram.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      out.rejected.push({ line, why: 'no name:value' });
      continue;
    }
    const name = line.slice(0, colon);
    // DogStatsD-style multi-value lines: `name:1|c:2|c` is rare; one value per line is the rule.
    const parts = line.slice(colon + 1).split('|');
    const value = parts[0] ?? '';
    const type = parts[1] ?? '';
    if (!TYPES.has(type)) {
      out.rejected.push({ line, why: `unknown type '${type}'` });
      continue;
    }
    let rate = 1;
    for (const p of parts.slice(2)) {
      if (p.startsWith('@')) {
        const r = Number(p.slice(1));
        if (!(r > 0 && r <= 1)) {
          out.rejected.push({ line, why: `bad sample rate '${p}'` });
          rate = Number.NaN;
        } else rate = r;
      }
      // `#tags` are accepted and ignored: cronstable does not send them.
    }
    if (Number.isNaN(rate)) continue;
    const num = Number(value);
    if (type !== 's' && (value === '' || !Number.isFinite(num))) {
      out.rejected.push({ line, why: `bad value '${value}'` });
      continue;
    }
    out.samples.push({
      name,
      value: type === 's' ? 0 : num,
      type: type as StatsdType,
      rate,
      delta: type === 'g' && (value.startsWith('+') || value.startsWith('-')),
      raw: value,
    });
  }
  return out;
}

interface Summary {
  count: number;
  sum: number;
  /** The most recent observations (seconds), for the quantiles. */
  window: number[];
}

const WINDOW = 500;
const QUANTILES = [0.5, 0.9, 0.99];

/** Prometheus metric name for a statsd name: `a.b-c` -> `a_b_c`. */
export function promName(statsdName: string): string {
  let n = statsdName.replace(/[^a-zA-Z0-9_:]/g, '_');
  if (/^[0-9]/.test(n)) n = `_${n}`;
  return n;
}

function fmt(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(12)));
}

/** What the sink has received so far, rendered on demand. */
export class StatsdRegistry {
  readonly counters = new Map<string, number>();
  readonly gauges = new Map<string, number>();
  readonly timers = new Map<string, Summary>();
  readonly sets = new Map<string, Set<string>>();
  packets = 0;
  rejectedLines = 0;

  add(samples: StatsdSample[]): void {
    for (const s of samples) {
      const name = promName(s.name);
      switch (s.type) {
        case 'c':
          this.counters.set(name, (this.counters.get(name) ?? 0) + s.value / s.rate);
          break;
        case 'g':
          this.gauges.set(name, s.delta ? (this.gauges.get(name) ?? 0) + s.value : s.value);
          break;
        case 's': {
          const set = this.sets.get(name) ?? new Set<string>();
          set.add(s.raw);
          this.sets.set(name, set);
          break;
        }
        default: {
          const t = this.timers.get(name) ?? { count: 0, sum: 0, window: [] };
          // ms timers are seconds in Prometheus; a sampled timer stands for 1/rate observations.
          const seconds = s.type === 'ms' ? s.value / 1000 : s.value;
          const weight = 1 / s.rate;
          t.count += weight;
          t.sum += seconds * weight;
          t.window.push(seconds);
          if (t.window.length > WINDOW) t.window.shift();
          this.timers.set(name, t);
        }
      }
    }
  }

  /** The Prometheus text exposition (version 0.0.4) of everything received. */
  render(): string {
    const lines: string[] = [];
    const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [name, v] of sorted(this.counters)) {
      lines.push(`# HELP ${name} statsd counter ${name}`, `# TYPE ${name} counter`, `${name} ${fmt(v)}`);
    }
    for (const [name, v] of sorted(this.gauges)) {
      lines.push(`# HELP ${name} statsd gauge ${name}`, `# TYPE ${name} gauge`, `${name} ${fmt(v)}`);
    }
    for (const [name, set] of sorted(this.sets)) {
      lines.push(`# HELP ${name} statsd set ${name} (distinct members)`, `# TYPE ${name} gauge`);
      lines.push(`${name} ${set.size}`);
    }
    for (const [name, t] of sorted(this.timers)) {
      lines.push(`# HELP ${name} statsd timer ${name} (seconds)`, `# TYPE ${name} summary`);
      const w = [...t.window].sort((a, b) => a - b);
      for (const q of QUANTILES) {
        const v = w[Math.min(w.length - 1, Math.floor(q * w.length))] ?? Number.NaN;
        lines.push(`${name}{quantile="${q}"} ${Number.isNaN(v) ? 'NaN' : fmt(v)}`);
      }
      lines.push(`${name}_sum ${fmt(t.sum)}`, `${name}_count ${fmt(t.count)}`);
    }
    lines.push(
      '# HELP statsd_sink_packets_total UDP datagrams received by the tour statsd sink',
      '# TYPE statsd_sink_packets_total counter',
      `statsd_sink_packets_total ${this.packets}`,
      '# HELP statsd_sink_rejected_lines_total lines that were not statsd',
      '# TYPE statsd_sink_rejected_lines_total counter',
      `statsd_sink_rejected_lines_total ${this.rejectedLines}`,
    );
    return `${lines.join('\n')}\n`;
  }
}
