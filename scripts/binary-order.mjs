// The standalone binary's bytecode layout profile (scripts/build-binary.mjs). A Bun executable
// built with --bytecode maps its embedded bytecode from the file and keeps resident every page a
// function it ran lies on; laid out in module order, the functions a daemon runs are scattered
// over most of the section. A run of the binary with BUN_BYTECODE_ORDER_OUT=<file> writes the
// functions it used, and `bun build --bytecode-order=<file>,...` then puts those together at the
// front: a daemon touches fewer pages (bench/RESULTS.md, "Binary memory (issue 34 item 4)").
// Recorded here on a small job set run by the binary itself: the daemon (jobs, a retry, a DAG,
// the store, the endpoints a dashboard and a scraper ask for), a job verb called from a job, and
// config validation; the daemon's profile first, as the most common way the binary starts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ORDER_ENV = 'BUN_BYTECODE_ORDER_OUT';
/** How long the daemon runs: long enough for the idle collection (every 5 s), retries and a DAG run. */
const DAEMON_RUN_MS = 7000;
const START_TIMEOUT_MS = 30_000;
const ENDPOINTS = ['/version', '/status', '/jobs', '/jobs/tick', '/metrics', '/calendar.ics', '/'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The training job set: every scalar quoted, block style only (the config's strict YAML). */
function jobSet(dir, port, binary, verbOrder) {
  const q = JSON.stringify;
  return `state:
  path: ${q(join(dir, 'state'))}
  jobApi:
    enabled: true
web:
  listen:
    - ${q(`http://127.0.0.1:${port}`)}
  metrics:
    public: true
jobs:
  - name: tick
    command: echo tick
    schedule: "* * * * * * *"
    captureStdout: true
  - name: flaky
    command: sh -c 'exit 1'
    schedule: "*/2 * * * * * *"
    onFailure:
      retry:
        maximumRetries: 1
        initialDelay: 1
        maximumDelay: 1
        backoffMultiplier: 1
  - name: keeper
    command: ${q(`${ORDER_ENV}=${verbOrder} ${binary} state set last "$(date +%s)"`)}
    schedule: "*/3 * * * * * *"
  - name: nightly
    command:
      - /bin/sh
      - -c
      - echo report
    schedule:
      minute: "30"
      hour: "2"
    timezone: Europe/London
dags:
  - name: etl
    schedule: "*/3 * * * * * *"
    tasks:
      - id: extract
        command: echo extract
      - id: load
        dependsOn:
          - extract
        command: echo load
`;
}

async function get(url) {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
}

/** Runs the daemon on the training job set, asks its endpoints, and stops it with SIGTERM. */
async function recordDaemon(binary, config, port, out) {
  const child = spawn(binary, ['-c', config, '-l', 'WARNING'], {
    env: { ...process.env, [ORDER_ENV]: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}) before answering`);
      const ok = await get(`${base}/version`).then(
        (s) => s === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`the daemon did not answer ${base}/version`);
      await sleep(100);
    }
    const until = Date.now() + DAEMON_RUN_MS;
    while (Date.now() < until) {
      for (const path of ENDPOINTS) {
        const status = await get(`${base}${path}`);
        if (status !== 200) throw new Error(`${path}: HTTP ${status}`);
      }
      await sleep(1000);
    }
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`recording the daemon's bytecode order: ${e.message}\n${stderr}`);
  }
  child.kill('SIGTERM');
  const { code } = await exited;
  if (code !== 0) throw new Error(`the training daemon exited with ${code}:\n${stderr}`);
}

function recordValidate(binary, config, out) {
  const r = spawnSync(binary, ['-v', '-c', config], {
    env: { ...process.env, [ORDER_ENV]: out },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cronstable -v on the training job set failed:\n${r.stderr}`);
}

/**
 * Records the order profiles of `binary` (one built with --bytecode) into `dir`; returns their
 * paths, most important first, as --bytecode-order takes them.
 */
export async function recordBytecodeOrder(binary, dir) {
  const work = mkdtempSync(join(tmpdir(), 'cronstable-order-'));
  try {
    const port = await freePort();
    const files = {
      daemon: join(dir, 'daemon.order'),
      verb: join(dir, 'job-verb.order'),
      validate: join(dir, 'validate.order'),
    };
    for (const f of Object.values(files)) rmSync(f, { force: true });
    const config = join(work, 'cronstable.yaml');
    writeFileSync(config, jobSet(work, port, binary, files.verb));
    await recordDaemon(binary, config, port, files.daemon);
    recordValidate(binary, config, files.validate);
    const written = Object.values(files).filter((f) => existsSync(f) && statSync(f).size > 0);
    if (!written.includes(files.daemon)) throw new Error(`the training daemon wrote no ${files.daemon}`);
    return written;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
