// `cronstable [-c CONF] slots JOB [--since ISO] [--until ISO] [--json]`: every scheduled slot of a
// job and its fate, read from the run ledger of the config's `state:` store (shared by the fleet, so
// any node or an operator's shell answers for all of them). Same rows as GET /jobs/{name}/slots.
import { parseArgs } from 'node:util';
import type { SlotView } from '../scheduler/slots.ts';
import { jobSlots, ledgerRows, slotsBody, slotWindow } from '../scheduler/slots-ledger.ts';
import type { CliIo } from '../util/cli-io.ts';
import { errorText } from '../util/errors.ts';
import { parseIsoInstant } from '../util/instant.ts';
import { DEFAULT_CONFIG_PATH } from './usage.ts';
import { loadVerbConfig, verbArgs } from './verb-args.ts';

export const SLOTS_USAGE = `usage: cronstable [-c CONF] slots JOB [--since ISO] [--until ISO] [--json]

Every scheduled slot of JOB in [--since, --until) and what became of it (ran, failed,
skipped-overlap, claimed-elsewhere, missed, caught-up, ...), from the run ledger of the
configuration's state: store. Slots nobody recorded are 'unaccounted'.

  --since ISO   window start (default: 24 hours before --until)
  --until ISO   window end, exclusive (default: now); at most 31 days wide
  --json        print the same JSON body as GET /jobs/JOB/slots
  -h, --help    show this help`;

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

export function slotsTable(slots: readonly SlotView[]): string[] {
  const head = ['SCHEDULED_AT', 'OUTCOME', 'NODE', 'RUN_ID', 'REASON'];
  const rows = slots.map((s) => [s.scheduled_at, s.outcome, s.node ?? '-', s.run_id ?? '-', s.reason ?? '']);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export async function runSlots(argv: string[], io: CliIo, nowMs: () => number = Date.now): Promise<number> {
  const split = verbArgs(argv, 'slots');
  const usage = (m: string) => {
    io.err(`cronstable slots: ${m}\n`);
    return 2;
  };
  if (!split) return usage('expected: cronstable [-c CONF] slots JOB (see --help)');
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: split.rest,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        since: { type: 'string' },
        until: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    return usage(errorText(e));
  }
  if (values.help) {
    io.out(`${SLOTS_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) return usage(positionals.length ? 'expected exactly one JOB' : 'missing JOB');
  const name = positionals[0]!;
  const w = slotWindow(
    values.since as string | undefined,
    values.until as string | undefined,
    nowMs(),
    parseIsoInstant,
  );
  if ('error' in w) return usage(w.error.replace("'from'", '--since').replace("'to'", '--until'));
  const configPath = (values.config as string | undefined) ?? split.config ?? DEFAULT_CONFIG_PATH;
  const fail = (m: string) => {
    io.err(`cronstable slots: ${m}\n`);
    return 1;
  };
  const cfg = loadVerbConfig(configPath);
  if ('error' in cfg) return fail(cfg.error);
  const job = cfg.jobs.find((j) => j.name === name);
  if (!job) return fail(`job '${name}' not found in ${configPath}`);
  if (!cfg.state)
    return fail(
      `the configuration at ${configPath} has no 'state' section: the slot ledger lives in the store (a daemon without one answers GET /jobs/${name}/slots from memory)`,
    );
  const { openStore } = await import('../store/index.ts');
  const store = await openStore({
    path: cfg.state.path,
    namespace: cfg.state.deploymentId || 'default',
    topology: cfg.state.topology ?? 'auto',
    placement: 'inline',
    writer: 'cronstable-cli',
  });
  try {
    const r = jobSlots(job, await ledgerRows(store, name), w, []);
    if (values.json) {
      io.out(`${JSON.stringify(slotsBody(job, w, r, 'ledger'))}\n`);
      return 0;
    }
    for (const line of slotsTable(r.slots)) io.out(`${line}\n`);
    const summary = Object.entries(r.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    io.out(
      `${r.slots.length} slot(s)${summary ? `: ${summary}` : ''}${r.truncated ? ` (${r.truncated} older not shown)` : ''}\n`,
    );
    return 0;
  } catch (e) {
    return fail(`reading the run ledger failed: ${errorText(e)}`);
  } finally {
    await store.close();
  }
}
