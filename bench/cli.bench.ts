// CLI start-up, end to end (spawn to exit), each against a baseline measured in the same run:
//   cli.version_seconds / cli.version_ratio: `node dist/cronstable.mjs --version` over bare
//     `node -e 0` (budget 1.3x);
//   cli.job_verb_ms.node / cli.job_verb_ratio.node: `cronstable state get KEY` from inside a job
//     (the daemon's loopback job API, a real store) on Node, over bare `node -e 0` (budget 1.3x);
//   cli.job_verb_ms.bun / cli.job_verb_ratio.bun: the same verb from the `bun build --compile`
//     binary, over a compiled one-line hello-world Bun binary (budget 2x);
//   cli.validate_fixture_ms: `-v` on example/grand-tour/platform.yaml on Node (budget 200 ms).
// Commands are timed round-robin (one run of each per round, median of ROUNDS) so load from
// other processes on a shared machine falls on the baseline and the measured command alike.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeBin } from '../scripts/runtimes.mjs';
import { JobApiClient } from '../src/jobapi/client.ts';
import { JobApiServer } from '../src/jobapi/server.ts';
import { openStore } from '../src/store/index.ts';
import type { Metric } from './metric.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');
const BUN = runtimeBin('bun');
const FIXTURE_DIR = join(ROOT, 'example', 'grand-tour');
const ROUNDS = 20;
const quiet = { debug: () => {}, info: () => {}, warning: () => {} };

interface Command {
  name: string;
  argv: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** What stdout must be, so a failing command is never timed as a fast one. */
  expectOut?: RegExp;
}

/** Wall milliseconds from spawn to exit. Asynchronous: the job API answers from this process. */
function timeOnce(cmd: Command): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), {
      cwd: cmd.cwd ?? ROOT,
      env: cmd.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0 || (cmd.expectOut && !cmd.expectOut.test(out)))
        reject(new Error(`${cmd.name}: exit ${code}, stdout ${JSON.stringify(out)}, stderr ${err}`));
      else resolve(ms);
    });
  });
}

async function medians(commands: Command[], rounds: number): Promise<Map<string, number>> {
  const times = new Map<string, number[]>(commands.map((c) => [c.name, []]));
  for (const c of commands) await timeOnce(c); // warm the file cache; not counted
  for (let i = 0; i < rounds; i++) for (const c of commands) times.get(c.name)!.push(await timeOnce(c));
  const result = new Map<string, number>();
  for (const [name, list] of times) {
    list.sort((a, b) => a - b);
    result.set(name, list[Math.floor(list.length / 2)]!);
  }
  return result;
}

/** Compiles a script as `npm run build:binary` does (bytecode: Bun then skips parsing at start). */
function compileBun(entry: string, outfile: string): void {
  const args = ['build', '--compile', '--bytecode', '--format=esm', entry, '--outfile', outfile];
  const r = spawnSync(BUN, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bun build --compile ${entry}: ${r.stderr}`);
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-cli-'));
  const store = await openStore({ path: join(dir, 'state'), namespace: 'bench', topology: 'single-node' });
  const server = await JobApiServer.start({ store, host: 'bench', logger: quiet });
  try {
    const { env: jobEnv } = server.register({
      jobName: 'bench',
      attempt: 0,
      scheduledAt: null,
      allowedScopes: [],
    });
    const client = JobApiClient.fromEnv(jobEnv);
    const set = await client.post('/v1/kv/set', { key: 'rows', value: 1234 });
    client.close();
    if (set.status !== 200) throw new Error(`kv/set answered ${set.status}`);
    writeFileSync(join(dir, 'hello.ts'), "console.log('hello');\n");
    compileBun(join(dir, 'hello.ts'), join(dir, 'hello'));
    // As `npm run build:binary` does it: from a bundle with every dependency inlined.
    const built = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts', 'build-binary.mjs'), join(dir, 'cronstable')],
      {
        encoding: 'utf8',
      },
    );
    if (built.status !== 0) throw new Error(`scripts/build-binary.mjs: ${built.stderr}`);
    const env = { ...process.env, ...jobEnv };
    const node = process.execPath;
    const m = await medians(
      [
        { name: 'bare', argv: [node, '-e', '0'] },
        { name: 'version', argv: [node, BUNDLE, '--version'], expectOut: /^cronstable \d/ },
        { name: 'verbNode', argv: [node, BUNDLE, 'state', 'get', 'rows'], env, expectOut: /^1234\n$/ },
        { name: 'hello', argv: [join(dir, 'hello')], expectOut: /^hello\n$/ },
        {
          name: 'verbBun',
          argv: [join(dir, 'cronstable'), 'state', 'get', 'rows'],
          env,
          expectOut: /^1234\n$/,
        },
        { name: 'validate', argv: [node, BUNDLE, '-c', 'platform.yaml', '-v'], cwd: FIXTURE_DIR },
      ],
      ROUNDS,
    );
    const ms = (name: string) => m.get(name)!;
    return [
      { metric: 'cli.node_bare_ms', value: round(ms('bare'), 1), unit: 'ms' },
      { metric: 'cli.version_seconds', value: round(ms('version') / 1000, 4), unit: 's' },
      {
        metric: 'cli.version_ratio',
        value: round(ms('version') / ms('bare'), 3),
        unit: 'ratio',
        budget: 1.3,
      },
      { metric: 'cli.job_verb_ms.node', value: round(ms('verbNode'), 1), unit: 'ms' },
      {
        metric: 'cli.job_verb_ratio.node',
        value: round(ms('verbNode') / ms('bare'), 3),
        unit: 'ratio',
        budget: 1.3,
      },
      { metric: 'cli.bun_hello_ms', value: round(ms('hello'), 1), unit: 'ms' },
      { metric: 'cli.job_verb_ms.bun', value: round(ms('verbBun'), 1), unit: 'ms' },
      {
        metric: 'cli.job_verb_ratio.bun',
        value: round(ms('verbBun') / ms('hello'), 3),
        unit: 'ratio',
        budget: 2,
      },
      { metric: 'cli.validate_fixture_ms', value: round(ms('validate'), 1), unit: 'ms', budget: 200 },
    ];
  } finally {
    await server.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const m of await run()) process.stdout.write(`${JSON.stringify(m)}\n`);
}
