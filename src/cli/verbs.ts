// Every verb of the `cronstable` command line, with its one-line summary. The dispatcher
// (src/main.ts, src/cli/daemon.ts) routes by this table and `cronstable --help` prints it, so a
// verb cannot exist without being listed (test/integration/cli-verbs.test.ts keeps both in step).
// Kept free of imports: `--version` and the job verbs load it on their start path.

/** Where a verb is handled: its own module, the job-API client, or after the daemon's `-c`. */
export type VerbRoute = 'next' | 'mcp' | 'tui' | 'job' | 'admin';

export interface VerbEntry {
  name: string;
  route: VerbRoute;
  /** One line for `cronstable --help`; the verb's own `--help` has the rest. */
  summary: string;
}

export const VERBS: readonly VerbEntry[] = [
  {
    name: 'next',
    route: 'next',
    summary: 'print the next fire instants of a cron expression or a configured job',
  },
  {
    name: 'init',
    route: 'admin',
    summary: 'write a starter config into DIRECTORY (refuses one already in use)',
  },
  { name: 'slots', route: 'admin', summary: 'every scheduled slot of JOB and its fate, from the run ledger' },
  {
    name: 'state',
    route: 'job',
    summary: 'in a job: get/set/delete durable keys; with -c: check, gc, backup, restore, migrate the store',
  },
  { name: 'cursor', route: 'job', summary: 'in a job: read or advance a forward-only cursor' },
  {
    name: 'idempotent',
    route: 'job',
    summary: 'in a job: claim a key fleet-wide, exit 5 if already claimed',
  },
  {
    name: 'lock',
    route: 'job',
    summary: 'in a job: fleet-wide mutexes and semaphores (acquire, run, release)',
  },
  { name: 'artifact', route: 'job', summary: 'in a job: put, get and list content-addressed artifacts' },
  { name: 'secret', route: 'job', summary: "in a job: read the run's secrets" },
  { name: 'xcom', route: 'job', summary: 'in a DAG task: push, pull and list XCom values' },
  {
    name: 'mcp',
    route: 'mcp',
    summary: "relay an MCP client on stdio to a daemon's /mcp endpoint (--check tests it)",
  },
  { name: 'tui', route: 'tui', summary: 'the terminal dashboard of a running daemon' },
];

export const JOB_VERBS: ReadonlySet<string> = new Set(
  VERBS.filter((v) => v.route === 'job').map((v) => v.name),
);

/** The `verbs:` block of `cronstable --help`: one line per verb, summaries aligned. */
export function verbsHelp(): string {
  const width = Math.max(...VERBS.map((v) => v.name.length)) + 3;
  return VERBS.map((v) => `  ${v.name.padEnd(width)}${v.summary}\n`).join('');
}
