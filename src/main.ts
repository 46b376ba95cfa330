// Entry point: dispatches argv to one command. Everything is imported lazily so that
// `--version` touches nothing else (its wall time is a budget, DESIGN.md §12).
declare const __CRONSTABLE_VERSION__: string | undefined;

async function version(): Promise<string> {
  if (typeof __CRONSTABLE_VERSION__ === 'string') return __CRONSTABLE_VERSION__;
  const { readFileSync } = await import('node:fs');
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
}

const io = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
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
  const { runDaemonCommand } = await import('./cli/daemon.ts');
  return runDaemonCommand(argv, io);
}

/** A worker thread started by the daemon to load its configuration off the main heap. */
async function workerMain(): Promise<boolean> {
  const { isMainThread, parentPort, workerData } = await import('node:worker_threads');
  if (isMainThread || !parentPort || workerData?.task !== 'cronstable:load-config') return false;
  const { runConfigWorker } = await import('./config/isolated.ts');
  runConfigWorker(workerData, (reply) => parentPort.postMessage(reply));
  return true;
}

const argv = process.argv.slice(2);
if (argv[0] === '--version' || !(await workerMain())) {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`cronstable: internal error: ${(e as Error)?.stack ?? e}\n`);
      process.exitCode = 70;
    },
  );
}
