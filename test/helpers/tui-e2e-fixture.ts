// The spec 08 §7 fixture as a real daemon for the TUI's pseudo-terminal tests: six jobs (one failing with
// stdout and stderr, one running for an hour, one printing hostile escape sequences, one disabled), the
// non-heartbeat ones started once through the API and waited for, and a temp HOME for the dashboard.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/fleet/ports.ts';
import { type E2eDaemon, startE2eDaemon } from './e2e-daemon.ts';
import { until } from './until.ts';

/** The §7 fixture's first two jobs: a heartbeat every second and a nightly backup that fails with output on both streams. */
export const HEARTBEAT_AND_BACKUP = `  - name: heartbeat
    command: echo "beat $(date -u +%H:%M:%S)"
    schedule: "* * * * * * *"
    captureStdout: true
  - name: nightly-backup
    schedule: "0 3 * * *"
    captureStdout: true
    captureStderr: true
    command: |
      echo "backing up /var/lib/app ..."
      echo "rsync: write failed: No space left on device" >&2
      exit 69
`;

export const FIXTURE_CONFIG = (port: number): string => `# spec 08 §7 fixture for the terminal dashboard
jobs:
${HEARTBEAT_AND_BACKUP}  - name: long-sleep
    schedule: "*/30 * * * *"
    command: sleep 3600
    concurrencyPolicy: Forbid
  - name: report-daily
    schedule: "0 6 * * mon-fri"
    captureStdout: true
    command: printf '\\033[32mreport ok\\033[0m\\n'
  - name: colour-probe
    schedule: "*/5 * * * *"
    captureStdout: true
    command: |
      printf '\\033[1;33mWARN\\033[0m slow disk\\n'
      printf '\\033]0;pwned-title\\007title attempt\\n'
      printf '\\033]52;c;aGVsbG8=\\007clipboard attempt\\n'
      printf '\\033[2J\\033[Hclear attempt\\n'
      printf '55%%\\r100%% progress\\n'
      printf 'tab\\there 日本語 wide\\n'
  - name: legacy-sync
    schedule: "15 2 * * *"
    command: echo never
    enabled: false
web:
  listen:
    - http://127.0.0.1:${port}
`;

export const FIXTURE_NAMES = [
  'heartbeat',
  'nightly-backup',
  'long-sleep',
  'report-daily',
  'colour-probe',
  'legacy-sync',
];

export interface TuiFixture {
  dir: string;
  home: string;
  base: string;
  daemon: E2eDaemon;
}

/** Starts the daemon on a free loopback port; with `runs`, starts the jobs once and waits for their outcomes. */
export async function startTuiFixture(opts: { runs?: boolean } = {}): Promise<TuiFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'tui-e2e-'));
  const home = mkdtempSync(join(tmpdir(), 'tui-home-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'cronstable.yaml'), FIXTURE_CONFIG(port));
  const daemon = await startE2eDaemon(dir, { base });
  if (opts.runs !== false) {
    for (const j of ['nightly-backup', 'long-sleep', 'report-daily', 'colour-probe'])
      await fetch(`${base}/jobs/${j}/start`, { method: 'POST' });
    await until('the fixture runs to finish', 15_000, async () => {
      const jobs = (await (await fetch(`${base}/jobs`)).json()) as Array<{
        name: string;
        last_run: unknown;
        running: boolean;
      }>;
      const by = new Map(jobs.map((j) => [j.name, j]));
      const done = ['nightly-backup', 'report-daily', 'colour-probe'].every((n) => by.get(n)?.last_run);
      return done && by.get('long-sleep')?.running ? true : null;
    });
  }
  return { dir, home, base, daemon };
}
