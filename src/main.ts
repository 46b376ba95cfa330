// Entry point: dispatches argv to one command. Each command is a dynamic import, which the
// bundle evaluates on first use, so a command pays only for the modules it needs: start-up of
// `--version` and of the job verbs is a budget (DESIGN.md §12).

import { JOB_VERBS } from './cli/verbs.ts';
import type { CliIo } from './util/cli-io.ts';
import { errorText } from './util/errors.ts';

declare const __CRONSTABLE_VERSION__: string | undefined;

async function version(): Promise<string> {
  if (typeof __CRONSTABLE_VERSION__ === 'string') return __CRONSTABLE_VERSION__;
  const { readFileSync } = await import('node:fs');
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
}

/**
 * A reader that went away (`cronstable next ... | head -1`) is the normal end of a pipeline,
 * not an error: by default the command stops quietly with exit 0; the daemon swaps in a
 * graceful stop. Later writes are dropped.
 */
let onBrokenPipe: () => void = () => process.exit(0);
let pipeBroken = false;
function brokenPipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
  if (pipeBroken) return;
  pipeBroken = true;
  process.exitCode = 0;
  onBrokenPipe();
}

const io: CliIo = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
  onBrokenPipe: (stop) => {
    onBrokenPipe = stop;
  },
};

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    io.out(`cronstable ${await version()}\n`);
    return 0;
  }
  if (argv[0] === 'next') {
    const { runNext } = await import('./cli/next.ts');
    return runNext(argv.slice(1), {
      out: (line) => io.out(`${line}\n`),
      err: (line) => io.err(`${line}\n`),
      nowMs: () => Date.now(),
    });
  }
  if (argv[0] === 'mcp') {
    const { runMcpBridge } = await import('./cli/mcp/bridge.ts');
    return runMcpBridge({
      argv: argv.slice(1),
      env: process.env,
      stdin: process.stdin,
      out: io.out,
      err: io.err,
    });
  }
  if (argv[0] === 'tui') {
    const { runTuiCommand } = await import('./tui/cli.ts');
    return runTuiCommand(argv.slice(1), io);
  }
  if (JOB_VERBS.has(argv[0] ?? '')) {
    const { dispatchJobVerb } = await import('./cli/jobverbs.ts');
    const code = await dispatchJobVerb(argv);
    // null: a state-admin action (`state check|gc|backup|restore|migrate`), handled below.
    if (code !== null) return code;
  }
  const { runDaemonCommand } = await import('./cli/daemon.ts');
  return runDaemonCommand(argv, io);
}

/** Worker threads the daemon starts from its own entry: the config loader and the store lanes. */
async function workerMain(): Promise<boolean> {
  const { isMainThread, parentPort, workerData } = await import('node:worker_threads');
  if (isMainThread || !parentPort) return false;
  if (workerData?.task === 'cronstable:load-config') {
    const { runConfigWorker } = await import('./config/isolated.ts');
    runConfigWorker(workerData, (reply) => parentPort.postMessage(reply));
    return true;
  }
  if (workerData?.task === 'cronstable:store-lane') {
    const { runStoreLane } = await import('./store/lane.ts');
    runStoreLane(workerData, parentPort);
    return true;
  }
  return false;
}

const argv = process.argv.slice(2);
// A worker thread started from this file never inherits the parent's arguments, so only an
// argument-less start can be one; every command line skips loading node:worker_threads.
if (argv.length > 0 || !(await workerMain())) {
  process.stdout.on('error', brokenPipe);
  process.stderr.on('error', brokenPipe);
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`cronstable: internal error: ${errorText(e, { stack: true })}\n`);
      process.exitCode = 70;
    },
  );
}
