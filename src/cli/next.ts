// `cronstable next EXPR [--tz ZONE] [--after ISO8601] [-n N] [--hash-key NAME] [--dst-repeated R] [--dst-skipped S]`:
// print upcoming fire instants.
import { formatUtcInstant } from '../schedule/civil.ts';
import {
  type CronSchedule,
  DEFAULT_DST_POLICY,
  type DstPolicy,
  dstPolicyOf,
  type Frame,
  isKnownTimezone,
  isReboot,
  MIN_INSTANT_MS,
  occurrences,
  parseCron,
  resolveFrame,
  ScheduleError,
} from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { parseIsoInstant } from '../util/instant.ts';

const USAGE = `usage: cronstable next EXPR [--tz ZONE] [--after ISO8601] [-n N] [--hash-key NAME]
                      [--dst-repeated first|last|both] [--dst-skipped shift|skip]
       cronstable next --job NAME -c CONFIG [--after ISO8601] [-n N] [--dst-repeated ...] [--dst-skipped ...]

Print the next N fire instants (UTC, one per line) of a schedule expression strictly after --after.

  EXPR             cron expression (5, 6 or 7 fields) or @yearly/@monthly/@weekly/@daily/@hourly; quote it
  --tz ZONE        evaluate in this IANA zone (default: UTC)
  --after INSTANT  ISO-8601 instant, e.g. 2026-03-08T06:00:00Z; no offset means UTC (default: now)
  -n N             how many instants to print (default 1, at most 100000)
  --hash-key NAME  hash key (job name) for H fields
  --job NAME       a job or DAG of the config given with -c: its schedule, zone and dst policy (the
                   --dst-* options override the policy)
  -c CONFIG        configuration file or directory (with --job)
  --dst-repeated P a wall time the fall-back repeats fires on its first (default), last or both occurrences
  --dst-skipped P  a wall time the spring-forward skips fires shifted later (shift, default) or not (skip)
  -h, --help       show this help`;

const MAX_COUNT = 100_000;

export async function runNext(
  argv: string[],
  io: { out: (line: string) => void; err: (line: string) => void; nowMs: () => number },
): Promise<number> {
  const fail = (message: string): number => {
    io.err(`cronstable next: ${message}`);
    return 2;
  };
  let parsed: NextArgs;
  try {
    parsed = parseNextArgs(argv);
  } catch (e) {
    return fail(`${errorText(e)} (see --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.job !== undefined) {
    if (positionals.length > 0) return fail('give either a schedule expression or --job NAME, not both');
    if (values.config === undefined) return fail('--job needs the configuration: -c FILE|DIR');
  } else if (positionals.length !== 1) {
    return fail(
      positionals.length === 0
        ? 'missing schedule expression (see --help)'
        : `expected one schedule expression, got ${positionals.length} arguments; quote the expression`,
    );
  } else if (values.config !== undefined) return fail('-c is only used with --job NAME');
  let count = 1;
  if (values.n !== undefined) {
    if (!/^\d+$/.test(values.n) || Number(values.n) < 1 || Number(values.n) > MAX_COUNT) {
      return fail(`invalid -n value '${values.n}': expected a whole number from 1 to ${MAX_COUNT}`);
    }
    count = Number(values.n);
  }
  let after = io.nowMs();
  if (values.after !== undefined) {
    const t = parseIsoInstant(values.after);
    if (t === null) {
      return fail(
        `invalid --after value '${values.after}': expected an ISO-8601 instant such as 2026-03-08T06:00:00Z`,
      );
    }
    if (t < MIN_INSTANT_MS)
      return fail(
        `invalid --after value '${values.after}': the schedule engine's calendar starts at 1970-01-01`,
      );
    after = t;
  }
  // Validated before the job is looked up; a job's own policy is the base of the override below.
  const dstFlags = { repeated: values['dst-repeated'], skipped: values['dst-skipped'] };
  const override = (base: DstPolicy) => dstPolicyOf(dstFlags, base, (f) => `--dst-${f} value`);
  const checked = override(DEFAULT_DST_POLICY);
  if ('error' in checked) return fail(checked.error);

  let schedule: CronSchedule;
  let frame: Frame;
  let dst: DstPolicy;
  if (values.job !== undefined) {
    if (values.tz !== undefined || values['hash-key'] !== undefined)
      return fail('--tz and --hash-key come from the job with --job; drop them');
    const job = await findJob(values.config!, values.job, io.nowMs());
    if (typeof job === 'string') return fail(job);
    ({ schedule, frame } = job);
    const own = override(job.dst);
    if ('error' in own) return fail(own.error);
    dst = own;
  } else {
    const expr = positionals[0]!;
    if (isReboot(expr)) return fail("'@reboot' fires once at daemon start and has no next fire time");
    if (values.tz !== undefined && !isKnownTimezone(values.tz)) return fail(`unknown timezone: ${values.tz}`);
    try {
      schedule = parseCron(expr, values['hash-key'] === undefined ? {} : { hashKey: values['hash-key'] });
    } catch (e) {
      if (e instanceof ScheduleError) return fail(`invalid schedule '${expr}': ${e.message}`);
      throw e;
    }
    frame = resolveFrame({ timezone: values.tz ?? null });
    dst = checked;
  }
  for (const ms of occurrences(schedule, frame, after, { limit: count, dst })) io.out(formatUtcInstant(ms));
  return 0;
}

/** The schedule, frame and policy of a job or DAG in a config, or an error message. */
async function findJob(
  path: string,
  name: string,
  nowMs: number,
): Promise<{ schedule: CronSchedule; frame: Frame; dst: DstPolicy } | string> {
  const { loadConfig } = await import('../config/load.ts');
  let cfg: Awaited<ReturnType<typeof loadConfig>>;
  try {
    cfg = loadConfig(path, { nowMs });
  } catch (e) {
    return errorText(e);
  }
  const found = cfg.jobs.find((j) => j.name === name) ?? cfg.dags.find((d) => d.name === name);
  if (found === undefined) return `no job or DAG named '${name}' in ${path}`;
  if (found.cron === null) return `'${name}' has no cron schedule (@reboot or unscheduled DAG)`;
  return { schedule: found.cron, frame: found.frame, dst: found.dst };
}

interface NextArgs {
  values: {
    tz?: string;
    after?: string;
    n?: string;
    'hash-key'?: string;
    'dst-repeated'?: string;
    'dst-skipped'?: string;
    job?: string;
    config?: string;
    help?: boolean;
  };
  positionals: string[];
}

type ValueKey = 'tz' | 'after' | 'n' | 'hash-key' | 'dst-repeated' | 'dst-skipped' | 'job' | 'config';
const VALUE_OPTIONS: Record<string, ValueKey> = {
  '--tz': 'tz',
  '--job': 'job',
  '-c': 'config',
  '--config': 'config',
  '--dst-repeated': 'dst-repeated',
  '--dst-skipped': 'dst-skipped',
  '--after': 'after',
  '-n': 'n',
  '--hash-key': 'hash-key',
};

/** `--opt value`, `--opt=value`, `-nVALUE`, `-h`/`--help`, `--` ends options. Throws on unknown options. */
function parseNextArgs(argv: string[]): NextArgs {
  const values: NextArgs['values'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      values.help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const key = VALUE_OPTIONS[name];
    if (key !== undefined) {
      const value = name === arg ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new Error(`option '${name}' needs a value`);
      values[key] = value;
    } else if (arg.startsWith('-n') && arg.length > 2) {
      values.n = arg.slice(2);
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      throw new Error(`unknown option '${arg}'`);
    } else positionals.push(arg);
  }
  return { values, positionals };
}
