// The mitigate console's engine (spec 06 §9.2): bulk start / cancel, one POST at a time a few hundred ms apart
// so a recovering dependency is not hit by every job at once, abortable between steps, and a Markdown summary
// of what was done. The POST and the sleep are injected, so the unit tests drive it without a daemon or a clock.
import { errorText } from '../util/errors.ts';
import { jobStatus } from './status.ts';
import type { ApiJob } from './types.ts';

export type MitigateVerb = 'start' | 'cancel';

export const STAGGER_CHOICES = [250, 500, 1000, 2000] as const;
export const DEFAULT_STAGGER_MS = 500;

/** A job the console offers: failing ones to start again, running ones to cancel. */
export interface Candidate {
  name: string;
  state: 'failing' | 'running';
  /** what the console does to it by default */
  verb: MitigateVerb;
  detail: string;
}

export function mitigationCandidates(jobs: readonly ApiJob[]): Candidate[] {
  const out: Candidate[] = [];
  for (const j of jobs) {
    const s = jobStatus(j);
    if (s === 'running') {
      out.push({ name: j.name, state: 'running', verb: 'cancel', detail: `pid ${j.pids.join(', ') || '?'}` });
    } else if (s === 'failed') {
      const r = j.last_run!;
      out.push({
        name: j.name,
        state: 'failing',
        verb: 'start',
        detail: r.exit_code === null ? (r.fail_reason ?? 'failed') : `exit ${r.exit_code}`,
      });
    }
  }
  return out.sort((a, b) =>
    a.state === b.state ? a.name.localeCompare(b.name) : a.state === 'failing' ? -1 : 1,
  );
}

export interface StepResult {
  name: string;
  verb: MitigateVerb;
  ok: boolean;
  /** HTTP status, 0 when the request itself failed */
  status: number;
  detail: string;
  /** epoch ms the request was sent */
  at: number;
}

export interface StaggerOptions {
  gapMs: number;
  signal: AbortSignal;
  act(name: string, verb: MitigateVerb): Promise<{ ok: boolean; status: number; text: string }>;
  onStep?(result: StepResult, index: number): void;
  now?(): number;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

export interface StaggerOutcome {
  results: StepResult[];
  /** names never sent because the run was aborted */
  skipped: string[];
  aborted: boolean;
}

/** A sleep that ends early (resolves) when the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/** Sends `verb` to each job in order, `gapMs` apart; an abort stops before the next job (never mid-request). */
export async function runStaggered(
  steps: ReadonlyArray<{ name: string; verb: MitigateVerb }>,
  opts: StaggerOptions,
): Promise<StaggerOutcome> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const results: StepResult[] = [];
  for (let i = 0; i < steps.length; i++) {
    if (i > 0) await sleep(opts.gapMs, opts.signal);
    if (opts.signal.aborted) {
      return { results, skipped: steps.slice(i).map((s) => s.name), aborted: true };
    }
    const { name, verb } = steps[i]!;
    const at = now();
    let result: StepResult;
    try {
      const r = await opts.act(name, verb);
      result = {
        name,
        verb,
        ok: r.ok,
        status: r.status,
        detail: r.ok ? '' : bodyError(r.text, r.status),
        at,
      };
    } catch (err) {
      result = {
        name,
        verb,
        ok: false,
        status: 0,
        detail: errorText(err),
        at,
      };
    }
    results.push(result);
    opts.onStep?.(result, i);
  }
  return { results, skipped: [], aborted: false };
}

/** The `error` of a JSON error body, else the body text, else the status. */
function bodyError(text: string, status: number): string {
  try {
    const v = JSON.parse(text) as { error?: unknown };
    if (typeof v.error === 'string') return v.error;
  } catch {
    // not JSON
  }
  return text.trim() || `HTTP ${status}`;
}

const iso = (t: number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A Markdown summary to paste into the incident channel or ticket. */
export function mitigationMarkdown(o: {
  outcome: StaggerOutcome;
  gapMs: number;
  startedAt: number;
  finishedAt: number;
  node?: string | null;
}): string {
  const { results, skipped, aborted } = o.outcome;
  const ok = results.filter((r) => r.ok).length;
  const lines = [
    `### cronstable mitigation${o.node ? ` on ${o.node}` : ''}`,
    '',
    `- window: ${iso(o.startedAt)} → ${iso(o.finishedAt)} (${results.length + skipped.length} job(s), ${o.gapMs} ms apart)`,
    `- result: ${ok} ok, ${results.length - ok} failed${aborted ? `, aborted with ${skipped.length} not sent` : ''}`,
    '',
    '| # | job | action | result | at (UTC) |',
    '|---|---|---|---|---|',
  ];
  results.forEach((r, i) => {
    const res = r.ok ? 'ok' : `**failed**: ${r.detail.replaceAll('|', '\\|')}`;
    lines.push(`| ${i + 1} | \`${r.name}\` | ${r.verb} | ${res} | ${iso(r.at).slice(11, 19)} |`);
  });
  skipped.forEach((name, i) => {
    lines.push(`| ${results.length + i + 1} | \`${name}\` | — | not sent (aborted) | — |`);
  });
  return `${lines.join('\n')}\n`;
}
