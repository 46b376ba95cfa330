// GET /status (spec 06 §5.2): one entry per job in config order, text or JSON. It sits on a 250 ms
// probe path polled by every node, so it is built in two cached layers:
//  - a snapshot of the scheduler's status (absolute next-fire instants, pids), rebuilt after a
//    run/slot event once it is REFRESH_FACTOR build-times old (so a storm of events on a huge job
//    set costs at most ~5% of the loop; a small fleet is rebuilt at once), and at least every
//    MAX_AGE_MS otherwise (manual start/cancel rebuild it at once);
//  - the rendered bodies, made from the snapshot and the current time by string concatenation of
//    precomputed per-job fragments, reused for RENDER_TTL_MS.
// So `scheduled_in` is never more than RENDER_TTL_MS stale; running/pid changes show within MAX_AGE_MS.
import { constants, gzipSync } from 'node:zlib';
import type { JobStatus } from '../scheduler/view.ts';
import type { WebContext } from './context.ts';

const RENDER_TTL_MS = 100;
/** After an event, a snapshot is rebuilt once it is this many build-times old (at most MAX_REFRESH_MS). */
const REFRESH_FACTOR = 20;
const MAX_REFRESH_MS = 250;
const MAX_AGE_MS = 1000;

const enc = new TextEncoder();

function plural(n: number, unit: string): string {
  return `in ${n} ${unit}${n >= 2 ? 's' : ''}`;
}

/** `in 14 seconds`, `in 3 minutes`, `in 5 hours`, `in 2 days` (integer truncation, spec 06 §5.2). */
export function relativePhrase(seconds: number): string {
  const s = Math.max(0, Math.trunc(seconds));
  if (s < 120) return plural(s, 'second');
  const m = Math.trunc(s / 60);
  if (m < 120) return plural(m, 'minute');
  const h = Math.trunc(s / 3600);
  if (h < 48) return plural(h, 'hour');
  return plural(Math.trunc(s / 86_400), 'day');
}

export function statusLine(st: JobStatus, now: number): string {
  if (st.status === 'running') return `${st.name}: running (pid: ${st.pids.join(', ')})`;
  if (st.status === 'disabled') return `${st.name}: disabled`;
  if (st.reboot) return `${st.name}: scheduled (@reboot)`;
  if (st.nextFire === null) return `${st.name}: never fires (schedule has no future occurrence)`;
  return `${st.name}: scheduled (${relativePhrase((st.nextFire - now) / 1000)})`;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function statusEntry(st: JobStatus, now: number): Record<string, unknown> {
  if (st.status === 'running') {
    const e: Record<string, unknown> = { job: st.name, status: 'running', pid: st.pids };
    if (st.neverFires) e.never_fires = true;
    return e;
  }
  if (st.status === 'disabled') return { job: st.name, status: 'disabled' };
  if (st.reboot) return { job: st.name, status: 'scheduled', scheduled_in: '@reboot' };
  if (st.nextFire === null)
    return { job: st.name, status: 'scheduled', scheduled_in: null, never_fires: true };
  return { job: st.name, status: 'scheduled', scheduled_in: round3(Math.max(0, st.nextFire - now) / 1000) };
}

/** One job's rendering: fixed text, or a prefix waiting for the time-dependent part. */
interface Fragment {
  /** Absolute next fire when the rendering depends on the time, else null. */
  nextFire: number | null;
  text: string;
  json: string;
}

function fragment(st: JobStatus): Fragment {
  if (st.status === 'scheduled' && !st.reboot && st.nextFire !== null) {
    return {
      nextFire: st.nextFire,
      text: `${st.name}: scheduled (`,
      json: `{"job":${JSON.stringify(st.name)},"status":"scheduled","scheduled_in":`,
    };
  }
  return { nextFire: null, text: statusLine(st, 0), json: JSON.stringify(statusEntry(st, 0)) };
}

interface Snapshot {
  at: number;
  fragments: Fragment[];
}

interface Rendered {
  at: number;
  snapshot: Snapshot;
  body: Uint8Array;
  gzip: Uint8Array | null;
}

export class StatusView {
  private dirty = true;
  private snapshot: Snapshot | null = null;
  private minRefreshMs = 0;
  private text: Rendered | null = null;
  private json: Rendered | null = null;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly ctx: WebContext) {
    const mark = () => {
      this.dirty = true;
    };
    this.unsubscribe.push(
      ctx.scheduler.subscribe((e) => {
        if (e.type === 'run-finished' || e.type === 'slot') mark();
      }),
    );
  }

  /** Forces a fresh snapshot on the next request (manual start/cancel, reload). */
  invalidate(): void {
    this.dirty = true;
    this.snapshot = null;
  }

  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  private current(now: number): Snapshot {
    const s = this.snapshot;
    if (s !== null && now >= s.at) {
      const age = now - s.at;
      if (age < MAX_AGE_MS && !(this.dirty && age >= this.minRefreshMs)) return s;
    }
    this.dirty = false;
    const t0 = performance.now();
    const all = this.ctx.scheduler.status();
    const fragments = new Array<Fragment>(all.length);
    for (let i = 0; i < all.length; i++) fragments[i] = fragment(all[i]!);
    this.snapshot = { at: now, fragments };
    this.minRefreshMs = Math.min(MAX_REFRESH_MS, (performance.now() - t0) * REFRESH_FACTOR);
    return this.snapshot;
  }

  /** The gzip-encoded body (compressed once per rendering). */
  gzip(kind: 'text' | 'json'): Uint8Array {
    this.body(kind);
    const r = (kind === 'text' ? this.text : this.json)!;
    r.gzip ??= gzipSync(r.body, { level: constants.Z_BEST_SPEED });
    return r.gzip;
  }

  body(kind: 'text' | 'json'): Uint8Array {
    const now = this.ctx.clock.now();
    const snapshot = this.current(now);
    const cached = kind === 'text' ? this.text : this.json;
    if (cached && cached.snapshot === snapshot && now >= cached.at && now - cached.at < RENDER_TTL_MS)
      return cached.body;
    const f = snapshot.fragments;
    let out: string;
    if (kind === 'text') {
      const lines = new Array<string>(f.length);
      for (let i = 0; i < f.length; i++) {
        const x = f[i]!;
        lines[i] = x.nextFire === null ? x.text : `${x.text}${relativePhrase((x.nextFire - now) / 1000)})`;
      }
      out = lines.join('\n');
    } else {
      const parts = new Array<string>(f.length);
      for (let i = 0; i < f.length; i++) {
        const x = f[i]!;
        parts[i] = x.nextFire === null ? x.json : `${x.json}${round3(Math.max(0, x.nextFire - now) / 1000)}}`;
      }
      out = `[${parts.join(',')}]`;
    }
    const rendered: Rendered = { at: now, snapshot, body: enc.encode(out), gzip: null };
    if (kind === 'text') this.text = rendered;
    else this.json = rendered;
    return rendered.body;
  }
}
