// The dashboard's actions and loops (spec 08 §2): first load, the poll loop with backoff, the 1 s tick, toasts,
// mutations, the open drawer's log tail, the clipboard and the prefs. Views call these; none of them paints.
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ApiWhoami, accessOf } from '../../dashboard/access.ts';
import { PAUSED_INTERVAL_MS } from '../../dashboard/connection.ts';
import type { ApiDag } from '../../dashboard/dag.ts';
import { parseIso } from '../../dashboard/format.ts';
import { type ApiPause, pauseAction, pauseToast } from '../../dashboard/paused.ts';
import type { ApiCluster, ApiJob, ApiNode } from '../../dashboard/types.ts';
import { errorText } from '../../util/errors.ts';
import { type ApiClient, HttpError, seg } from '../data/client.ts';
import { osc52 } from '../data/clipboard.ts';
import { type Prefs, savePrefs } from '../data/prefs.ts';
import { LogTail } from '../data/tail.ts';
import { flatten, visibleText } from '../text/sanitize.ts';
import { fileStamp } from '../text/stamp.ts';
import type { Store, Surface, ToastTone, TuiState } from './state.ts';

type MutationVerb = 'start' | 'cancel' | 'pause' | 'resume';

export interface ControllerDeps {
  client: ApiClient;
  store: Store;
  /** wall clock and monotonic clock, ms */
  now: () => number;
  mono: () => number;
  /** where prefs are saved; null = never saved (tests) */
  prefsPath: string | null;
  /** raw bytes to the terminal outside the frame (OSC 52, BEL) */
  writeRaw: (text: string) => void;
  /** ends the program with an exit code */
  quit: (code: number) => void;
  /** the home directory saved logs go to */
  home?: string;
  /** a local clipboard besides OSC 52 (absent in tests) */
  clipboard?: (text: string) => void;
  /** the environment naming a multiplexer (TMUX, STY) that OSC 52 must pass through (absent: none) */
  terminalEnv?: NodeJS.ProcessEnv;
  /** the views' work after every good poll (refresh what they show, Q18): the registry's, in its order */
  afterPoll: (ctl: Controller) => void;
}

/** Something a surface holds open (a log stream), stopped when that surface closes or the program ends. */
export interface Stoppable {
  stop(): void;
}

const TOAST_MS = 3000;
const MAX_BACKOFF_MS = 30_000;
/** After a resume, the one quiet retry of a failed poll waits this long. */
const RESUME_RETRY_MS = 200;

export class Controller {
  private pollTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private toastSeq = 0;
  /** the token modal was opened for the current run of 401s */
  private tokenPrompted = false;
  /**
   * Set on resume (SIGCONT): the daemon has likely closed the kept-alive connection while this process was
   * stopped, so the first poll may fail on it; that failure is retried at once instead of shown.
   */
  private resumeGrace = false;
  /** a token was entered: confirm it once a poll succeeds (Q14) */
  private tokenEntered = false;
  private pendingJob: string | null = null;
  private stopped = false;
  /** the latest `/whoami` asked: an older answer arriving after a newer token's is dropped */
  private accessSeq = 0;
  /** the open job drawer's tail */
  tail: LogTail | null = null;
  private paintQueued = false;
  /** streams owned by open surfaces, by surface kind */
  private readonly owned = new Map<string, Set<Stoppable>>();

  constructor(readonly deps: ControllerDeps) {}

  get store(): Store {
    return this.deps.store;
  }

  get state(): TuiState {
    return this.deps.store.get();
  }

  // ---- loops -------------------------------------------------------------------------------------------------

  /** Starts the first load, the poll loop and the tick. `openJob` = `--job`, opened after the first load. */
  start(openJob: string | null): void {
    this.pendingJob = openJob;
    void this.firstLoad();
    this.tickTimer = setInterval(() => this.tick(), 1000);
  }

  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.tail?.stop();
    this.tail = null;
    for (const kind of [...this.owned.keys()]) this.releaseAll(kind);
  }

  /** Ties a stream to a surface kind: closing that surface (or quitting) stops it. */
  own<T extends Stoppable>(kind: string, res: T): T {
    const set = this.owned.get(kind) ?? new Set<Stoppable>();
    this.owned.set(kind, set);
    set.add(res);
    return res;
  }

  /** Stops one owned stream now. */
  release(kind: string, res: Stoppable): void {
    res.stop();
    this.owned.get(kind)?.delete(res);
  }

  private releaseAll(kind: string): void {
    for (const r of this.owned.get(kind) ?? []) r.stop();
    this.owned.delete(kind);
  }

  /** `GET /dags` into the data (first load, the DAGs panel); failures keep the last list. */
  async loadDags(): Promise<void> {
    try {
      const dags = await this.deps.client.json<unknown>('/dags');
      this.store.setData({ dags: Array.isArray(dags) ? (dags as ApiDag[]) : [] });
    } catch {
      // silent, like the rest of the first load
    }
  }

  private async firstLoad(): Promise<void> {
    const c = this.deps.client;
    void c.text('/version').then(
      (v) => this.store.setData({ version: flatten(v.trim()) }),
      () => {},
    );
    void c.text('/job-set-id').then(
      (v) => this.store.setData({ jobSetId: flatten(v.trim()) }),
      () => {},
    );
    await this.poll();
    await Promise.all([this.loadDags(), this.loadAccess()]);
  }

  /**
   * `GET /whoami` into `data.access`. No answer (a 404 from a daemon older than scopes, a failure) allows
   * everything: hiding is a courtesy, the daemon still refuses what the token may not do.
   */
  async loadAccess(): Promise<void> {
    const seq = ++this.accessSeq;
    const c = this.deps.client;
    const who = await c.json<ApiWhoami>('/whoami').catch(() => null);
    if (seq !== this.accessSeq) return;
    const answered = who !== null && typeof who === 'object' && Array.isArray(who.scopes) ? who : null;
    this.store.setData({ access: accessOf(answered, c.token !== null) });
  }

  tick(): void {
    const mono = this.deps.mono();
    this.store.set((s) => ({
      now: this.deps.now(),
      mono,
      toasts: s.toasts.some((t) => t.until <= mono) ? s.toasts.filter((t) => t.until > mono) : s.toasts,
    }));
  }

  /** Back from a stop (Ctrl-Z, fg): poll now, and reconnect quietly if the first poll meets a dead socket. */
  resumed(): void {
    this.resumeGrace = true;
    this.wake();
  }

  /** Polls now (the `g` key, a run, a token): any waiting poll is replaced. */
  wake(): void {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    void this.poll();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (delayMs <= 0) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll();
    }, delayMs);
  }

  async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    const c = this.deps.client;
    try {
      let jobs = await c.json<unknown>('/jobs');
      if (!Array.isArray(jobs)) jobs = [];
      this.resumeGrace = false;
      this.acceptJobs(jobs as ApiJob[]);
      const [cluster, node] = await Promise.all([
        c.json<ApiCluster>('/cluster').catch(() => null),
        c.json<ApiNode>('/node').catch(() => null),
      ]);
      this.store.setData({ cluster, node });
      this.deps.afterPoll(this);
      this.schedule(this.state.pollMs);
    } catch (e) {
      this.pollFailed(e);
    } finally {
      this.polling = false;
    }
  }

  /** A good `/jobs` answer: new failures, the alarm, the selection kept on the same job. */
  acceptJobs(jobs: readonly ApiJob[]): void {
    const prev = this.state.data;
    const before = new Map(prev.jobs.map((j) => [j.name, j.last_run?.finished_at ?? null]));
    const justFailed = new Set<string>();
    if (prev.everConnected) {
      for (const j of jobs) {
        if (j.last_run?.outcome !== 'failure') continue;
        if (before.get(j.name) !== j.last_run.finished_at) justFailed.add(j.name);
      }
    }
    const failing = jobs.some((j) => j.last_run?.outcome === 'failure');
    const alarmAcked = failing && justFailed.size === 0 ? prev.alarmAcked : false;
    if (justFailed.size > 0 && this.state.prefs.sound) this.deps.writeRaw('\u0007'.repeat(justFailed.size));
    this.store.setData({
      jobs,
      fetchedAt: this.deps.mono(),
      everConnected: true,
      error: null,
      failures: 0,
      retryAt: 0,
      justFailed,
      alarmAcked,
    });
    if (this.state.selected === null && jobs.length > 0) this.store.set({ selected: firstByName(jobs) });
    this.tokenPrompted = false;
    if (this.tokenEntered) {
      this.tokenEntered = false;
      this.toast(this.deps.client.token ? '⚿ token set' : '⚿ token cleared', 'ok');
      void this.reloadChips();
    }
    if (this.pendingJob !== null) {
      const name = this.pendingJob;
      this.pendingJob = null;
      if (jobs.some((j) => j.name === name)) this.openDrawer(name);
      else this.toast(`no such job: ${flatten(name)}`, 'fail');
    }
  }

  private async reloadChips(): Promise<void> {
    const c = this.deps.client;
    const [v, id] = await Promise.all([
      c.text('/version').catch(() => null),
      c.text('/job-set-id').catch(() => null),
    ]);
    this.store.setData({
      ...(v !== null ? { version: flatten(v.trim()) } : {}),
      ...(id !== null ? { jobSetId: flatten(id.trim()) } : {}),
    });
  }

  private pollFailed(e: unknown): void {
    const err = e instanceof HttpError ? e : new HttpError(null, errorText(e));
    if (this.resumeGrace && !err.unauthorized) {
      this.resumeGrace = false;
      this.schedule(RESUME_RETRY_MS);
      return;
    }
    const failures = this.state.data.failures + 1;
    if (err.unauthorized) {
      this.store.setData({ error: 'unauthorized', failures });
      if (!this.tokenPrompted) {
        this.tokenPrompted = true;
        this.push({ kind: 'token', text: '' } as Surface);
      }
      this.schedule(this.state.pollMs || 0);
      return;
    }
    // Q23: back off 1 -> 2 -> 4 ... 30 s on consecutive failures; `g` retries at once.
    const base = this.state.pollMs || PAUSED_INTERVAL_MS;
    const delay = Math.min(MAX_BACKOFF_MS, Math.max(1000, base) * 2 ** Math.min(5, failures - 1));
    const wait = Math.min(MAX_BACKOFF_MS, Math.max(base, delay));
    this.store.setData({ error: flatten(err.message), failures, retryAt: this.deps.mono() + wait });
    this.schedule(wait);
  }

  // ---- surfaces ----------------------------------------------------------------------------------------------

  top(): Surface | null {
    const st = this.state.stack;
    return st.length === 0 ? null : st[st.length - 1]!;
  }

  push(s: Surface): void {
    this.store.set((st) => ({ stack: [...st.stack.filter((x) => x.kind !== s.kind), s] }));
  }

  /** Replaces the top surface (a view updating its own state). */
  update<S extends Surface>(s: S, patch: Partial<S>): void {
    this.store.set((st) => ({ stack: st.stack.map((x) => (x === s ? { ...s, ...patch } : x)) }));
  }

  close(kind: string): void {
    if (kind === 'drawer') this.stopTail();
    this.releaseAll(kind);
    this.store.set((st) => ({ stack: st.stack.filter((x) => x.kind !== kind) }));
  }

  openDrawer(name: string, tab = 'logs'): void {
    this.stopTail();
    this.tail = new LogTail(`/jobs/${seg(name)}/logs`, {
      client: this.deps.client,
      now: this.deps.now,
      onChange: () => this.repaint(),
    });
    this.tail.start();
    this.store.set((st) => ({
      selected: st.data.jobs.some((j) => j.name === name) ? name : st.selected,
      stack: [
        ...st.stack.filter((x) => x.kind !== 'drawer'),
        { kind: 'drawer', job: name, tab, scroll: 0, search: '', searchFocused: false, match: -1 } as Surface,
      ],
    }));
  }

  private stopTail(): void {
    this.tail?.stop();
    this.tail = null;
  }

  /** A log tail changed: one repaint per macrotask however many lines arrived. */
  repaint(): void {
    if (this.paintQueued) return;
    this.paintQueued = true;
    setImmediate(() => {
      this.paintQueued = false;
      this.store.touch();
    });
  }

  // ---- toasts, prefs, clipboard ------------------------------------------------------------------------------

  toast(text: string, tone: ToastTone = 'info'): void {
    const t = { id: ++this.toastSeq, text: flatten(text), tone, until: this.deps.mono() + TOAST_MS };
    this.store.set((s) => ({ toasts: [...s.toasts, t].slice(-4) }));
  }

  setPrefs(patch: Partial<Prefs>): void {
    const prefs = { ...this.state.prefs, ...patch };
    this.store.set({ prefs });
    if (this.deps.prefsPath) savePrefs(this.deps.prefsPath, prefs);
  }

  /** OSC 52 (the terminal, or the SSH client's, puts it on the clipboard), plus a local tool when there is one. */
  copy(text: string, toast: string): void {
    this.deps.writeRaw(osc52(text, this.deps.terminalEnv));
    this.deps.clipboard?.(text);
    this.toast(toast, 'ok');
  }

  setToken(token: string): void {
    this.deps.client.token = token === '' ? null : token;
    this.tokenPrompted = false;
    this.tokenEntered = true;
    this.wake();
    void this.loadAccess();
  }

  // ---- mutations ---------------------------------------------------------------------------------------------

  async runJob(name: string): Promise<void> {
    await this.mutate(name, 'start', { ok: `▶ started ${name}`, conflict: `${name} is disabled` });
  }

  async cancelJob(name: string): Promise<void> {
    await this.mutate(name, 'cancel', { ok: `■ cancelled ${name}`, conflict: `${name} is not running` });
  }

  /** `p`: pause the job for an hour (an empty body), or resume it when paused (spec 10 §1.5). */
  async togglePause(job: { name: string; paused?: ApiPause | null }): Promise<void> {
    const action = pauseAction(job);
    await this.mutate(job.name, action, { ok: pauseToast(action, job.name, 200).text, conflict: '' });
  }

  private async mutate(name: string, verb: MutationVerb, text: { ok: string; conflict: string }) {
    // The token lacks `control`: the key does nothing, as the browser dashboard hides the button.
    if (!this.state.data.access.control) return;
    const what = verb;
    try {
      const r = await this.deps.client.post(`/jobs/${seg(name)}/${verb}`);
      if (r.status === 200 || r.status === 202) {
        this.toast(text.ok, 'ok');
        this.wake();
      } else if (r.status === 409) this.toast(text.conflict, 'warn');
      else if (r.status === 404) this.toast(`no such job: ${name}`, 'fail');
      else if (r.status === 401) {
        this.tokenPrompted = true;
        this.push({ kind: 'token', text: '' } as Surface);
      } else this.toast(`${what} ${name}: HTTP ${r.status}`, 'fail');
    } catch (e) {
      this.toast(`${what} ${name}: ${errorText(e)}`, 'fail');
    }
  }

  /** `d` in the Logs tab: the tail as plain text in ~/cronstable-<job>-<stamp>.log. */
  saveLog(job: string): void {
    const tail = this.tail;
    if (!tail) return;
    const stamp = fileStamp(this.deps.now());
    // Q19: the job name is untrusted; separators and controls never reach the file system path.
    const safe =
      flatten(job)
        .replace(/[/\\:*?"<>|\s]/g, '_')
        .replace(/^\.+/, '_') || 'job';
    const path = join(this.deps.home ?? homedir(), `cronstable-${safe}-${stamp}.log`);
    const body = tail.entries
      .map((e) =>
        e.kind === 'meta'
          ? `[meta] ${e.text}`
          : `[${e.kind === 'error' ? 'error' : e.kind}] ${visibleText(e.text)}`,
      )
      .join('\n');
    try {
      writeFileSync(path, `${body}\n`);
      this.toast(`saved ${path}`, 'ok');
    } catch (e) {
      this.toast(`save failed: ${errorText(e)}`, 'fail');
    }
  }

  quit(code = 0): void {
    this.stop();
    this.deps.quit(code);
  }
}

function firstByName(jobs: readonly ApiJob[]): string {
  let best = jobs[0]!.name;
  for (const j of jobs) if (j.name < best) best = j.name;
  return best;
}

/** Epoch ms of a job's last finish, or null. */
export const lastFinish = (j: ApiJob): number | null => parseIso(j.last_run?.finished_at);
