// Schedule engine benchmarks: cold build of a 100k-job fire index, and next-fire speed against croner.
import { Cron } from 'croner';
import {
  type CronSchedule,
  clearScheduleCaches,
  type Frame,
  MinHeap,
  nextFire,
  parseCron,
  resolveFrame,
} from '../src/schedule/index.ts';
import { bestOf, type Metric } from './metric.ts';

const NOW = Date.UTC(2026, 0, 7, 12, 0, 0);
const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Europe/London',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Australia/Sydney',
  'America/Los_Angeles',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
];

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A job as the scheduler holds it: config fields, then its armed schedule and frame. */
interface Job {
  name: string;
  expr: string;
  timezone: string | null;
  schedule: CronSchedule | null;
  frame: Frame | null;
}

/**
 * A realistic, varied, deterministic job mix (100k jobs give ~67k distinct texts): mostly pinned or stepped
 * minutes and hours, lists and ranges; ~50% restricted days (weekday ranges and lists, L, LW, nW, L-n, d#n, L<d>);
 * ~15% restricted months (names too); ~11% H items; ~3% nicknames; ~3% 7-field (seconds); ~5% a year column;
 * 40% of the jobs in one of ten IANA zones, the rest UTC. `agreedSubsetOnly` keeps to what croner also reads
 * the same way (no H, L-n, nicknames, seconds or years; one day side '*').
 */
export function jobMix(count: number, seed: number, agreedSubsetOnly: boolean): Job[] {
  const r = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const steps = [2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
  const H = !agreedSubsetOnly;
  const minute = (): string => {
    const x = r();
    if (x < 0.35) return String(int(0, 59));
    if (x < 0.55) return `*/${pick(steps)}`;
    if (x < 0.68) return `${int(0, 29)},${int(30, 59)}`;
    if (x < 0.73) return `${int(0, 20)}-${int(30, 59)}/${pick(steps)}`;
    if (x < 0.78) return `${int(0, 29)}-${int(30, 59)}`;
    if (x < 0.85 && H) return pick(['H', 'H/15', 'H(0-29)']);
    return x < 0.93 ? '*' : String(int(0, 59));
  };
  const hour = (): string => {
    const x = r();
    if (x < 0.4) return String(int(0, 23));
    if (x < 0.62) return '*';
    if (x < 0.72) return `*/${pick([2, 3, 4, 6, 8, 12])}`;
    if (x < 0.82) return `${int(6, 9)}-${int(16, 20)}`;
    if (x < 0.95) return `${int(0, 11)},${int(12, 23)}`;
    return H ? 'H' : String(int(0, 23));
  };
  const dom = (): string => {
    const x = r();
    if (x < 0.7) return '*';
    if (x < 0.8) return String(int(1, 28));
    if (x < 0.83) return 'L';
    if (x < 0.86) return 'LW';
    if (x < 0.88) return `${int(1, 28)}W`;
    if (x < 0.93) return `1,${int(10, 20)}`;
    if (x < 0.96) return `${int(1, 7)}-${int(8, 14)}`;
    if (x < 0.98 && H) return `L-${int(1, 5)}`;
    return '*/2';
  };
  const month = (): string => {
    const x = r();
    if (x < 0.85) return '*';
    if (x < 0.9) return pick(['jan', 'apr', 'jul', 'oct', '6', '12']);
    if (x < 0.95) return `${int(1, 6)},${int(7, 12)}`;
    return `${int(1, 4)}-${int(6, 12)}`;
  };
  const dow = (domText: string): string => {
    // croner recurses without bound on sparse or dead day combinations, so its subset keeps one side '*'.
    if (domText !== '*' && (agreedSubsetOnly || r() < 0.9)) return '*';
    const x = r();
    if (x < 0.65) return '*';
    if (x < 0.8) return 'mon-fri';
    if (x < 0.85) return String(int(0, 6));
    if (x < 0.88) return `${int(1, 5)}#${int(1, 4)}`;
    if (x < 0.9) return `L${int(1, 5)}`;
    if (x < 0.95) return '1,3,5';
    return 'sat,sun';
  };
  const jobs: Job[] = [];
  for (let i = 0; i < count; i++) {
    const name = `job-${i}`;
    const x = r();
    let expr: string;
    if (x < 0.03 && !agreedSubsetOnly) expr = pick(['@daily', '@hourly', '@weekly', '@monthly', '@yearly']);
    else {
      const d = dom();
      expr = `${minute()} ${hour()} ${d} ${month()} ${dow(d)}`;
      if (!agreedSubsetOnly) {
        const y = r();
        if (y < 0.03) expr = `${pick(['0', '*/10', '30', '*/2'])} ${expr} *`;
        else if (y < 0.08) expr = `${expr} ${pick(['*', '2026-2030', '2027', '2026/2'])}`;
      }
    }
    jobs.push({ name, expr, timezone: r() < 0.6 ? null : pick(ZONES), schedule: null, frame: null });
  }
  return jobs;
}

/**
 * One cold build (every cache cleared first), as the scheduler seeds its index: parse, resolve the frame, first next fire, keep the parsed
 * schedule on the job and push the job onto the fire heap.
 */
export function coldBuild(jobs: Job[]): MinHeap<Job> {
  clearScheduleCaches();
  for (const job of jobs) {
    job.schedule = null;
    job.frame = null;
  }
  const heap = new MinHeap<Job>();
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    const schedule = parseCron(job.expr, { hashKey: job.name });
    const frame = resolveFrame({ timezone: job.timezone });
    job.schedule = schedule;
    job.frame = frame;
    const next = nextFire(schedule, frame, NOW);
    if (next !== null) heap.push(next, job);
  }
  return heap;
}

async function coldBuildMetric(): Promise<Metric> {
  const jobs = jobMix(100_000, 42, false);
  const distinct = new Set(jobs.map((j) => j.expr)).size;
  if (distinct < 20_000) throw new Error(`job mix too uniform: ${distinct} distinct expressions`);
  let size = 0;
  const seconds = await bestOf(5, () => {
    size = coldBuild(jobs).size;
  });
  if (size < 99_000) throw new Error(`cold build indexed only ${size} jobs`);
  return { metric: 'schedule.cold_build_100k', value: Number(seconds.toFixed(4)), unit: 's', budget: 0.15 };
}

/** Our 5-field dialect -> croner's spelling of the same schedule (last weekday `L5` is `5#L` there). */
function toCroner(expr: string): string {
  const f = expr.split(' ');
  f[4] = f[4]!.replace(/^L(\d)$/, '$1#L');
  return f.join(' ');
}

async function nextVsCronerMetric(): Promise<Metric> {
  const jobs = jobMix(20_000, 7, true);
  const ours: { s: CronSchedule; frame: Frame }[] = [];
  const theirs: Cron[] = [];
  for (const job of jobs) {
    ours.push({ s: parseCron(job.expr), frame: resolveFrame({ timezone: job.timezone }) });
    theirs.push(new Cron(toCroner(job.expr), { timezone: job.timezone ?? 'UTC', domAndDow: true }));
  }
  const from = new Date(NOW);
  let sink = 0;
  const runOurs = (): void => {
    for (const { s, frame } of ours) sink += nextFire(s, frame, NOW) ?? 0;
  };
  const runTheirs = (): void => {
    for (const c of theirs) sink += c.nextRun(from)?.getTime() ?? 0;
  };
  // croner takes seconds for one pass (it walks candidate days with Intl in the loop), so it runs once; ours is
  // warmed up and timed as the best of several passes. Both sides use pre-built schedules.
  runOurs();
  const oursS = await bestOf(5, runOurs);
  const theirsS = await bestOf(1, runTheirs);
  if (sink === 0) throw new Error('no fires computed');
  return {
    metric: 'schedule.next_vs_croner',
    value: Number((oursS / theirsS).toFixed(4)),
    unit: 'ratio',
    budget: 0.5,
  };
}

/**
 * Issue 15: 20k next-fire searches of the same job mix with a non-default DST policy (both / skip) over
 * the default path's time, and the default path's own time per search. The default path is the spec's
 * unchanged loop; the policy path may cost more but must stay in the same order.
 */
async function dstPolicyMetrics(): Promise<Metric[]> {
  const jobs = jobMix(20_000, 7, true).map((j) => ({
    s: parseCron(j.expr),
    frame: resolveFrame({ timezone: j.timezone }),
  }));
  const policy = { repeated: 'both', skipped: 'skip' } as const;
  let sink = 0;
  const runDefault = (): void => {
    for (const { s, frame } of jobs) sink += nextFire(s, frame, NOW) ?? 0;
  };
  const runPolicy = (): void => {
    for (const { s, frame } of jobs) sink += nextFire(s, frame, NOW, policy) ?? 0;
  };
  runDefault();
  runPolicy();
  const defaultS = await bestOf(5, runDefault);
  const policyS = await bestOf(5, runPolicy);
  if (sink === 0) throw new Error('no fires computed');
  return [
    {
      metric: 'schedule.next_default_us',
      value: Number(((defaultS / jobs.length) * 1e6).toFixed(3)),
      unit: 'us',
    },
    {
      metric: 'schedule.next_dst_policy_ratio',
      value: Number((policyS / defaultS).toFixed(2)),
      unit: 'ratio',
    },
  ];
}

export async function run(): Promise<Metric[]> {
  return [await coldBuildMetric(), await nextVsCronerMetric(), ...(await dstPolicyMetrics())];
}
