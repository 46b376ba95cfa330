import { describe, expect, it } from 'vitest';
import {
  etagOf,
  formatNodeStats,
  limitSummaries,
  type PeerBody,
  parseNodeStats,
  parsePeerBody,
  parseRebootRan,
  storableEtag,
} from '../../src/cluster/gossip/body.ts';
import type { JobSummary } from '../../src/cluster/types.ts';

const base = {
  node_name: 'node-b',
  job_set_id: 'v1:abc',
  scheme_version: 'v1',
  instance_id: 'b'.repeat(32),
  cluster_size: 3,
  distribution: 'spread',
  elect_leader: true,
  members: [{ node_name: 'node-b', instance_id: 'b'.repeat(32), agreed: true }],
  mutual_agreeing: ['node-a'],
  quorate_vouched: ['node-a'],
  ran_reboot_jobs: [],
  job_summaries: {},
  job_summaries_truncated: false,
};

const parse = (v: unknown) => parsePeerBody(JSON.stringify(v));

describe('received /peer body validation (spec 05 §5.3)', () => {
  it('reads a well-formed body', () => {
    expect(parse(base)).toMatchObject({
      nodeName: 'node-b',
      instanceId: 'b'.repeat(32),
      clusterSize: 3,
      electLeader: true,
      members: [{ nodeName: 'node-b', instanceId: 'b'.repeat(32), agreed: true }],
      mutualAgreeing: ['node-a'],
    });
  });

  it.each([
    ['invalid JSON', '{', /invalid JSON/],
    ['not an object', '[1]', /not a JSON object/],
    ['scalar not a string', JSON.stringify({ ...base, node_name: 7 }), /node_name is not a string/],
    ['missing job_set_id', JSON.stringify({ ...base, job_set_id: undefined }), /job_set_id/],
    ['too long', JSON.stringify({ ...base, instance_id: 'x'.repeat(257) }), /over 256 chars/],
    ['control characters', JSON.stringify({ ...base, distribution: 'spr\u0007ad' }), /control/],
    ['cluster_size zero', JSON.stringify({ ...base, cluster_size: 0 }), /cluster_size/],
    ['cluster_size fractional', JSON.stringify({ ...base, cluster_size: 2.5 }), /cluster_size/],
    ['elect_leader not bool', JSON.stringify({ ...base, elect_leader: 'yes' }), /elect_leader/],
  ])('rejects %s', (_what, text, message) => {
    const out = parsePeerBody(text);
    expect(out).toBeInstanceOf(Error);
    expect((out as Error).message).toMatch(message);
  });

  // Spec 09 §9.4, vector 43: "" sorts first and could win the election.
  it.each(['node_name', 'job_set_id', 'scheme_version', 'instance_id', 'distribution'])(
    'v43: rejects an empty %s with the malformed-response text',
    (key) => {
      const out = parse({ ...base, [key]: '' });
      expect(out).toBeInstanceOf(Error);
      expect((out as Error).message).toBe(
        `malformed /peer response: '${key}' is empty, over 256 chars or contains control characters`,
      );
    },
  );

  it('v43: drops empty names from members and the name lists', () => {
    const out = parse({
      ...base,
      members: [
        { node_name: '', instance_id: 'i', agreed: true },
        { node_name: 'm', instance_id: '', agreed: true },
        { node_name: 'm', instance_id: 'i', agreed: true },
      ],
      mutual_agreeing: ['', 'a'],
      quorate_vouched: ['', 'a'],
      ran_reboot_jobs: ['', 'r'],
    });
    expect(out).toMatchObject({
      members: [{ nodeName: 'm', instanceId: 'i', agreed: true }],
      mutualAgreeing: ['a'],
      quorateVouched: ['a'],
      ranRebootJobs: ['r'],
    });
    expect(parseRebootRan(JSON.stringify({ job_set_id: 'v1:abc', names: ['', 'x'] }))?.names).toEqual(['x']);
  });

  it('filters list entries one by one and marks a body without members as legacy', () => {
    const out = parse({
      ...base,
      members: [
        { node_name: 'ok', instance_id: 'i', agreed: false },
        { node_name: 'bad\n', instance_id: 'i', agreed: true },
        { node_name: 'x', instance_id: 'i' },
        'junk',
      ],
      mutual_agreeing: ['a', 5, 'b\u0000', 'y'.repeat(300), 'c'],
      ran_reboot_jobs: Array.from({ length: 600 }, (_, i) => `r${i}`),
    });
    expect(out).toMatchObject({
      members: [{ nodeName: 'ok', instanceId: 'i', agreed: false }],
      mutualAgreeing: ['a', 'c'],
    });
    expect((out as { ranRebootJobs: string[] }).ranRebootJobs).toHaveLength(512);
    expect(parse({ ...base, members: undefined })).toMatchObject({ members: null });
  });

  it('keeps only well-formed job summaries', () => {
    const good: JobSummary = {
      running: false,
      enabled: true,
      scheduled_in: 5,
      last: { outcome: 'success', finished_at: '2026-01-01T00:00:00Z', duration: 1.5, exit_code: 0 },
    };
    const out = parse({
      ...base,
      job_summaries: { good, bad: { ...good, running: 'no' }, worse: { ...good, last: { outcome: 'meh' } } },
      job_summaries_truncated: true,
    });
    expect(out).toMatchObject({ jobSummaries: { good }, jobSummariesTruncated: true });
    expect(Object.keys((out as { jobSummaries: object }).jobSummaries)).toEqual(['good']);
  });
});

describe('our /peer body', () => {
  const summary = (inS: number): JobSummary => ({
    running: false,
    enabled: true,
    scheduled_in: inS,
    last: null,
  });
  const body = (summaries: Record<string, JobSummary>): PeerBody => ({ ...base, job_summaries: summaries });

  it('keeps its ETag while a summary only ages, and changes it when content changes', () => {
    const t0 = 1_700_000_000_000;
    const tag = etagOf(body({ j: summary(60) }), t0);
    expect(tag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(etagOf(body({ j: summary(50) }), t0 + 10_000)).toBe(tag);
    expect(etagOf(body({ j: summary(60) }), t0 + 10_000)).not.toBe(tag);
    expect(etagOf({ ...body({ j: summary(60) }), mutual_agreeing: [] }, t0)).not.toBe(tag);
  });

  it('cuts summaries at 512 by sorted name and drops names over 128 characters', () => {
    const all: Record<string, JobSummary> = {};
    for (let i = 0; i < 600; i++) all[`j${String(i).padStart(3, '0')}`] = summary(1);
    all['z'.repeat(129)] = summary(1);
    const { summaries, truncated } = limitSummaries(all);
    expect(truncated).toBe(true);
    expect(Object.keys(summaries)).toHaveLength(512);
    expect(Object.keys(summaries).at(-1)).toBe('j511');
    expect(limitSummaries({ a: summary(1) })).toEqual({ summaries: { a: summary(1) }, truncated: false });
  });

  it('stores only printable ETags up to 128 characters', () => {
    expect(storableEtag('"abc"')).toBe('"abc"');
    expect(storableEtag(undefined)).toBeNull();
    expect(storableEtag(`"${'a'.repeat(130)}"`)).toBeNull();
    expect(storableEtag('"a\tb"')).toBeNull();
  });
});

describe('node stats header and reboot-ran body', () => {
  it('round-trips stats and reads malformed values as null', () => {
    const stats = {
      cpu_percent: 1,
      cpu_count: 2,
      mem_percent: 3,
      mem_used_bytes: 4,
      mem_total_bytes: 5,
      proc_rss_bytes: 6,
      proc_cpu_percent: Number.NaN,
    };
    const header = formatNodeStats(stats) as string;
    expect(parseNodeStats(header)).toEqual({ ...stats, proc_cpu_percent: null });
    expect(parseNodeStats('{"cpu_percent":"hot"}')).toMatchObject({ cpu_percent: null });
    expect(parseNodeStats('nope')).toBeNull();
    expect(parseNodeStats(undefined)).toBeNull();
    expect(parseNodeStats(`{"x":"${'a'.repeat(1100)}"}`)).toBeNull();
  });

  it('parses /reboot-ran', () => {
    expect(parseRebootRan('{"job_set_id":"v1:x","names":["a",3,"b"]}')).toEqual({
      jobSetId: 'v1:x',
      names: ['a', 'b'],
    });
    expect(parseRebootRan('{"names":[]}')).toBeNull();
    expect(parseRebootRan('[')).toBeNull();
  });
});
