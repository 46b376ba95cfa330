// The `GET /peer` body (spec 05 §5.3): building ours, its strong ETag, and validating a peer's.
// A peer is CA-vouched but still untrusted input: every field is checked and list entries that
// do not fit are dropped one by one. Pure.
import { createHash } from 'node:crypto';
import { errorText } from '../../util/errors.ts';
import type { MemberEntry } from '../election.ts';
import { canonicalJson } from '../jobset.ts';
import type { JobSummary, NodeStats } from '../types.ts';

export const SCHEME_VERSION = 'v1';
/** Response cap after decompression, and the `POST /reboot-ran` body cap. */
export const MAX_BODY_BYTES = 256 * 1024;
const MAX_SCALAR = 256;
const MAX_LIST = 4096;
const MAX_SUMMARIES = 512;
const MAX_SUMMARY_NAME = 128;
export const MAX_RAN_JOBS = 512;
const MAX_STATS_HEADER = 1024;
const MAX_ETAG = 128;

export interface PeerBody {
  node_name: string;
  job_set_id: string;
  scheme_version: string;
  instance_id: string;
  cluster_size: number;
  distribution: string;
  elect_leader: boolean;
  members: { node_name: string; instance_id: string; agreed: boolean }[];
  mutual_agreeing: string[];
  quorate_vouched: string[];
  ran_reboot_jobs: string[];
  job_summaries: Record<string, JobSummary>;
  job_summaries_truncated: boolean;
}

/** A validated peer body, in our names; null = the peer did not declare it. */
export interface ReceivedBody {
  nodeName: string;
  jobSetId: string;
  schemeVersion: string;
  instanceId: string | null;
  clusterSize: number | null;
  distribution: string | null;
  electLeader: boolean | null;
  /** Null when the body carried no `members` list (a legacy peer). */
  members: MemberEntry[] | null;
  mutualAgreeing: string[];
  quorateVouched: string[];
  ranRebootJobs: string[];
  jobSummaries: Record<string, JobSummary>;
  jobSummariesTruncated: boolean;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const isPrintable = (text: string, max = MAX_SCALAR): boolean =>
  text.length <= max && !CONTROL.test(text);

/**
 * A name a peer may declare (spec 09 §9.4): printable and non-empty, since `""` sorts first and
 * would win the election, stopping every Leader job.
 */
const isName = (text: string): boolean => text !== '' && isPrintable(text);

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** At most 512 summaries, names of at most 128 characters, cut by sorted name. */
export function limitSummaries(all: Record<string, JobSummary>): {
  summaries: Record<string, JobSummary>;
  truncated: boolean;
} {
  const names = Object.keys(all)
    .filter((n) => isPrintable(n, MAX_SUMMARY_NAME))
    .sort(byName);
  const kept = names.slice(0, MAX_SUMMARIES);
  const summaries: Record<string, JobSummary> = {};
  for (const n of kept) summaries[n] = all[n] as JobSummary;
  return { summaries, truncated: kept.length < Object.keys(all).length };
}

/**
 * The strong ETag: a quoted SHA-256 of the payload with each `scheduled_in` made absolute (next
 * fire epoch seconds, rounded), so a body that only aged between two polls keeps its tag.
 */
export function etagOf(body: PeerBody, nowMs: number): string {
  const summaries: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(body.job_summaries))
    summaries[name] = {
      ...s,
      scheduled_in: s.scheduled_in === null ? null : Math.round(nowMs / 1000 + s.scheduled_in),
    };
  const digest = createHash('sha256')
    .update(canonicalJson({ ...body, job_summaries: summaries }))
    .digest('hex');
  return `"${digest}"`;
}

/** An ETag worth echoing: at most 128 printable ASCII characters. */
export const storableEtag = (tag: string | undefined): string | null =>
  tag !== undefined && tag.length <= MAX_ETAG && /^[\x20-\x7e]+$/.test(tag) ? tag : null;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(body: Json, key: string, required: boolean): string | null {
  const v = body[key];
  if (v === undefined && !required) return null;
  if (typeof v !== 'string') throw new Error(`${key} is not a string`);
  if (!isName(v))
    throw new Error(`'${key}' is empty, over ${MAX_SCALAR} chars or contains control characters`);
  return v;
}

function names(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.slice(0, MAX_LIST).filter((s): s is string => typeof s === 'string' && isName(s));
}

function members(v: unknown): MemberEntry[] | null {
  if (!Array.isArray(v)) return null;
  const out: MemberEntry[] = [];
  for (const m of v.slice(0, MAX_LIST)) {
    if (!isObject(m)) continue;
    const { node_name: nodeName, instance_id: instanceId, agreed } = m;
    if (typeof nodeName !== 'string' || !isName(nodeName)) continue;
    if (typeof instanceId !== 'string' || !isName(instanceId)) continue;
    if (typeof agreed !== 'boolean') continue;
    out.push({ nodeName, instanceId, agreed });
  }
  return out;
}

const numOrNull = (v: unknown): v is number | null =>
  v === null || (typeof v === 'number' && Number.isFinite(v));

function summary(v: unknown): JobSummary | null {
  if (!isObject(v)) return null;
  if (typeof v.running !== 'boolean' || typeof v.enabled !== 'boolean' || !numOrNull(v.scheduled_in))
    return null;
  let last: JobSummary['last'] = null;
  if (v.last !== null) {
    const l = v.last;
    if (!isObject(l)) return null;
    if (l.outcome !== 'success' && l.outcome !== 'failure' && l.outcome !== 'cancelled') return null;
    if (typeof l.finished_at !== 'string' || !isPrintable(l.finished_at)) return null;
    if (!numOrNull(l.duration)) return null;
    if (!(l.exit_code === null || Number.isInteger(l.exit_code))) return null;
    last = {
      outcome: l.outcome,
      finished_at: l.finished_at,
      duration: l.duration,
      exit_code: l.exit_code as number | null,
    };
  }
  return { running: v.running, enabled: v.enabled, scheduled_in: v.scheduled_in, last };
}

function summaries(v: unknown): Record<string, JobSummary> {
  const out: Record<string, JobSummary> = {};
  if (!isObject(v)) return out;
  const keys = Object.keys(v)
    .filter((k) => isPrintable(k, MAX_SUMMARY_NAME))
    .sort(byName)
    .slice(0, MAX_SUMMARIES);
  for (const k of keys) {
    const s = summary(v[k]);
    if (s) out[k] = s;
  }
  return out;
}

/** Parses and checks a `/peer` body; an Error names what was wrong (the round is a failure). */
export function parsePeerBody(text: string): ReceivedBody | Error {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return new Error('invalid JSON in /peer body');
  }
  if (!isObject(raw)) return new Error('/peer body is not a JSON object');
  try {
    const size = raw.cluster_size;
    if (size !== undefined && !(Number.isInteger(size) && (size as number) >= 1))
      throw new Error('cluster_size is not a positive integer');
    const elect = raw.elect_leader;
    if (elect !== undefined && typeof elect !== 'boolean') throw new Error('elect_leader is not a boolean');
    return {
      nodeName: scalar(raw, 'node_name', true) as string,
      jobSetId: scalar(raw, 'job_set_id', true) as string,
      schemeVersion: scalar(raw, 'scheme_version', false) ?? SCHEME_VERSION,
      instanceId: scalar(raw, 'instance_id', false),
      clusterSize: (size as number | undefined) ?? null,
      distribution: scalar(raw, 'distribution', false),
      electLeader: elect ?? null,
      members: members(raw.members),
      mutualAgreeing: names(raw.mutual_agreeing),
      quorateVouched: names(raw.quorate_vouched),
      ranRebootJobs: names(raw.ran_reboot_jobs).slice(0, MAX_RAN_JOBS),
      jobSummaries: summaries(raw.job_summaries),
      jobSummariesTruncated: raw.job_summaries_truncated === true,
    };
  } catch (err) {
    return new Error(`malformed /peer response: ${errorText(err)}`);
  }
}

const STAT_KEYS = [
  'cpu_percent',
  'cpu_count',
  'mem_percent',
  'mem_used_bytes',
  'mem_total_bytes',
  'proc_rss_bytes',
  'proc_cpu_percent',
] as const satisfies readonly (keyof NodeStats)[];

/** The `X-Cronstable-Node-Stats` header value, or null when it would not fit. */
export function formatNodeStats(stats: NodeStats): string | null {
  const out: Record<string, number | null> = {};
  for (const k of STAT_KEYS) out[k] = Number.isFinite(stats[k]) ? stats[k] : null;
  const text = JSON.stringify(out);
  return text.length <= MAX_STATS_HEADER ? text : null;
}

/** A received stats header; anything malformed reads as no reading. */
export function parseNodeStats(header: string | string[] | undefined): NodeStats | null {
  if (typeof header !== 'string' || header.length > MAX_STATS_HEADER) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(header);
  } catch {
    return null;
  }
  if (!isObject(raw)) return null;
  const out = {} as NodeStats;
  for (const k of STAT_KEYS) {
    const v = raw[k];
    out[k] = typeof v === 'number' && Number.isFinite(v) ? v : null;
  }
  return out;
}

/** The `POST /reboot-ran` body; null when it is not one. */
export function parseRebootRan(text: string): { jobSetId: string; names: string[] } | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(raw) || typeof raw.job_set_id !== 'string' || !Array.isArray(raw.names)) return null;
  return { jobSetId: raw.job_set_id, names: names(raw.names).slice(0, MAX_RAN_JOBS) };
}
