// The boot self-test (spec 08 §4.14): a short typed report of the link, the daemon's version, the job set,
// the next fire and the cluster, then a verdict. It owns the screen until done; the first key skips it (and is
// consumed), Ctrl-C still quits (Q12). A 401 daemon gets LOCKED, not ALL CHECKS PASSED (Q14).
import { formatIn } from '../../../dashboard/format.ts';
import type { ApiCluster, ApiJob } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { BootLine } from '../../app/state.ts';
import { HttpError } from '../../data/client.ts';
import type { Prefs } from '../../data/prefs.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import { command } from '../command.ts';
import type { RenderCtx, ViewDescriptor } from '../types.ts';

const TWELVE_HOURS_S = 12 * 3600;
const CHARS_PER_STEP = 3;
const STEP_MS = 12;
const PAUSE_MS = 350;

/** `--boot` forces it, `--no-boot` skips it; else the pref decides, at most every 12 hours. */
export function bootDue(flag: boolean | null, prefs: Prefs, nowMs: number): boolean {
  if (flag !== null) return flag;
  return prefs.boot && nowMs / 1000 - prefs.boot_last > TWELVE_HOURS_S;
}

const skippers = new WeakMap<Controller, () => void>();

/** A key during the test: skip it. */
export function skipBoot(ctl: Controller): void {
  skippers.get(ctl)?.();
}

type Probe = (ctl: Controller) => Promise<BootLine[]>;

interface Findings {
  linkOk: boolean;
  locked: boolean;
  failing: number;
}

function probes(url: string, f: Findings): Probe[] {
  return [
    async (ctl) => {
      const t0 = ctl.deps.mono();
      try {
        const v = await ctl.deps.client.text('/version');
        f.linkOk = true;
        const ms = Math.round(ctl.deps.mono() - t0);
        return [
          { text: ` link ........ OK ${url} (${ms}ms)`, tone: 'fg' },
          { text: ` firmware .... ${flatten(v.trim()) || 'unknown'}`, tone: 'fg' },
        ];
      } catch (e) {
        if (e instanceof HttpError && e.status !== null) {
          f.linkOk = true;
          f.locked = e.unauthorized;
          const ms = Math.round(ctl.deps.mono() - t0);
          return [
            { text: ` link ........ OK ${url} (${ms}ms)`, tone: 'fg' },
            { text: ` firmware .... ${f.locked ? 'locked (token needed)' : 'unknown'}`, tone: 'warn' },
          ];
        }
        return [
          { text: ` link ........ FAIL ${url} unreachable`, tone: 'fail' },
          { text: ' firmware .... unknown', tone: 'dim' },
        ];
      }
    },
    async (ctl) => {
      if (!f.linkOk || f.locked) return [];
      const c = ctl.deps.client;
      const [jobs, id] = await Promise.all([
        c.json<ApiJob[]>('/jobs').catch(() => null),
        c.text('/job-set-id').catch(() => null),
      ]);
      const list = Array.isArray(jobs) ? jobs : [];
      f.failing = list.filter((j) => j.last_run?.outcome === 'failure').length;
      const idText = id ? ` · ${flatten(id.trim()).slice(0, 12)}` : '';
      const next = list
        .filter((j) => j.enabled && typeof j.scheduled_in === 'number')
        .reduce((m, j) => Math.min(m, j.scheduled_in as number), Infinity);
      return [
        { text: ` job set ..... ${list.length} job(s)${idText}`, tone: 'fg' },
        {
          text: ` schedules ... ${Number.isFinite(next) ? `next fire ${formatIn(next * 1000)}` : 'nothing scheduled'}`,
          tone: 'fg',
        },
      ];
    },
    async (ctl) => {
      if (!f.linkOk || f.locked) return [];
      const cl = await ctl.deps.client.json<ApiCluster>('/cluster').catch(() => null);
      let text = 'standalone';
      if (cl?.enabled)
        text = cl.quorate === false ? 'NO QUORUM' : `${flatten(cl.backend ?? 'cluster')} · quorate`;
      return [{ text: ` cluster ..... ${text}`, tone: cl?.enabled && cl.quorate === false ? 'warn' : 'fg' }];
    },
  ];
}

function verdictLine(f: Findings): BootLine {
  if (!f.linkOk) return { text: ' DEGRADED — daemon unreachable', tone: 'warn' };
  if (f.locked) return { text: ' LOCKED — token needed', tone: 'warn' };
  if (f.failing > 0) return { text: ` ${f.failing} JOB(S) FAILING — the board wants you`, tone: 'warn' };
  return { text: ' ALL CHECKS PASSED', tone: 'ok' };
}

const total = (lines: readonly BootLine[]) => lines.reduce((n, l) => n + [...l.text].length, 0);

/** Runs the test on the screen; resolves when it is done or skipped. `boot_last` is saved either way. */
export function runBoot(ctl: Controller, url: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let done = false;
    let lines: BootLine[] = [{ text: ' CRONSTABLE TUI — POWER-ON SELF-TEST', tone: 'accent' }];
    let probing = true;
    ctl.store.set({ boot: { lines, typed: 0 } });
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(typer);
      skippers.delete(ctl);
      ctl.setPrefs({ boot_last: Math.floor(ctl.deps.now() / 1000) });
      ctl.store.set({ boot: null });
      resolve();
    };
    skippers.set(ctl, finish);
    // Quitting during the test (Ctrl-C) must not leave the typing timer holding the process open.
    ctl.own('boot', { stop: finish });
    const typer = setInterval(() => {
      const b = ctl.state.boot;
      if (!b || done) return;
      const all = total(lines);
      if (b.typed < all) ctl.store.set({ boot: { lines, typed: Math.min(all, b.typed + CHARS_PER_STEP) } });
      else if (!probing) {
        clearInterval(typer);
        setTimeout(finish, PAUSE_MS);
      }
    }, STEP_MS);
    void (async () => {
      const f: Findings = { linkOk: false, locked: false, failing: 0 };
      for (const p of probes(url, f)) {
        const more = await p(ctl);
        if (done) return;
        lines = [...lines, ...more];
      }
      lines = [...lines, verdictLine(f)];
      probing = false;
    })();
  });
}

/** The boot screen: the typed part of the report, with a block cursor at the typing point. */
export function paintBoot(ctx: RenderCtx, height: number): string[] {
  const { s, theme, g } = ctx;
  const b = s.boot!;
  const out: string[] = [new Line(theme, s.cols).done()];
  let left = b.typed;
  for (const l of b.lines) {
    if (left <= 0) break;
    const chars = [...l.text];
    const shown = chars.slice(0, left).join('');
    left -= chars.length;
    const line = new Line(theme, s.cols);
    line.add(shown, { fg: l.tone, bold: l.tone !== 'fg' });
    if (left < 0 || (left === 0 && b.lines.indexOf(l) === b.lines.length - 1))
      line.add(g.cursor, { fg: 'accent' });
    out.push(line.done());
  }
  const blank = new Line(theme, s.cols).done();
  while (out.length < height) out.push(blank);
  return out.slice(0, height);
}

/** The palette's boot self-test toggle (the test itself runs before the board, from run.tsx). */
export const bootDescriptor: ViewDescriptor = {
  folder: 'boot',
  palette: ({ ctl }) => [
    command('boot', 'Toggle boot self-test', '▮', () => {
      ctl.setPrefs({ boot: !ctl.state.prefs.boot });
      ctl.toast(`▮ boot self-test: ${ctl.state.prefs.boot ? 'on' : 'off'}`, 'info');
    }),
  ],
};
