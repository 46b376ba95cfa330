// The reference's job-set ids (spec 05 §4): each job's canonical identity JSON, its digest and
// the set id must be byte-identical, or a mixed fleet splits on the id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, jobDigest, jobIdentity, jobSetId } from '../../src/cluster/jobset.ts';
import { loadConfig } from '../../src/config/load.ts';

const dir = join(import.meta.dirname, '../fixtures/job-set-id');

interface Vector {
  job_set_id: string;
  jobs: { canonical: string; digest: string }[];
}

describe.each(['one', 'two'])('job-set id vector %s', (name) => {
  const vector = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Vector;
  const jobs = loadConfig(join(dir, `${name}.yaml`), { nowMs: 0 }).jobs;
  const expected = new Map(vector.jobs.map((j) => [(JSON.parse(j.canonical) as { name: string }).name, j]));

  it('has every job of the vector', () => {
    expect(jobs.map((j) => j.name).sort()).toEqual([...expected.keys()].sort());
  });

  it.each(jobs.map((j) => [j.name, j] as const))('job %s: canonical JSON and digest', (_n, job) => {
    const want = expected.get(job.name);
    expect(canonicalJson(jobIdentity(job))).toBe(want?.canonical);
    expect(jobDigest(job)).toBe(want?.digest);
  });

  it('set id', () => {
    expect(jobSetId(jobs)).toBe(vector.job_set_id);
  });
});
