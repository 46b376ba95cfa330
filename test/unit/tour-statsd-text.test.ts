// The statsd sink's pure half: the line protocol in, Prometheus text out.
import { describe, expect, it } from 'vitest';
import { parseStatsd, promName, StatsdRegistry } from '../../scripts/tour/sinks/statsd-text.ts';

describe('parseStatsd', () => {
  it('reads counters, gauges, timers and sets, one per line, with sample rates', () => {
    const { samples, rejected } = parseStatsd(
      'jobs.started:1|c\nq.depth:7|g\nq.depth:-2|g\nrun.duration:1500|ms|@0.1\nusers:alice|s\n',
    );
    expect(rejected).toEqual([]);
    expect(samples.map((s) => [s.name, s.type, s.value, s.rate, s.delta])).toEqual([
      ['jobs.started', 'c', 1, 1, false],
      ['q.depth', 'g', 7, 1, false],
      ['q.depth', 'g', -2, 1, true],
      ['run.duration', 'ms', 1500, 0.1, false],
      ['users', 's', 0, 1, false],
    ]);
    expect(samples[4]!.raw).toBe('alice');
  });

  it('rejects what is not statsd, saying why, and keeps the rest of the datagram', () => {
    const { samples, rejected } = parseStatsd('hello\nx:1|q\ny:abc|c\nz:1|c|@2\nok:2|c');
    expect(samples.map((s) => s.name)).toEqual(['ok']);
    expect(rejected.map((r) => r.why)).toEqual([
      'no name:value',
      "unknown type 'q'",
      "bad value 'abc'",
      "bad sample rate '@2'",
    ]);
  });
});

describe('StatsdRegistry', () => {
  it('renders what cronstable pushes as Prometheus text (timers in seconds, sampled counts scaled)', () => {
    const reg = new StatsdRegistry();
    // cronstable's start and stop datagrams (src/report/statsd.ts).
    reg.add(parseStatsd('meridian.etl.build_facts.start:1|g\n').samples);
    reg.add(
      parseStatsd(
        'meridian.etl.build_facts.stop:1|g\nmeridian.etl.build_facts.success:1|g\nmeridian.etl.build_facts.duration:5012|ms\n',
      ).samples,
    );
    reg.add(parseStatsd('hits:2|c\nhits:1|c|@0.5\ndepth:5|g\ndepth:+3|g\nu:a|s\nu:b|s\nu:a|s').samples);
    const text = reg.render();
    expect(text).toContain(
      '# TYPE meridian_etl_build_facts_success gauge\nmeridian_etl_build_facts_success 1\n',
    );
    expect(text).toContain('# TYPE meridian_etl_build_facts_duration summary');
    expect(text).toContain('meridian_etl_build_facts_duration{quantile="0.99"} 5.012\n');
    expect(text).toContain('meridian_etl_build_facts_duration_sum 5.012\n');
    expect(text).toContain('meridian_etl_build_facts_duration_count 1\n');
    expect(text).toContain('# TYPE hits counter\nhits 4\n');
    expect(text).toContain('depth 8\n');
    expect(text).toContain('u 2\n');
  });

  it('maps statsd names to valid metric names', () => {
    expect(promName('a.b-c/d')).toBe('a_b_c_d');
    expect(promName('9lives')).toBe('_9lives');
  });
});
