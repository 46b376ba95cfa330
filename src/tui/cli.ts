// `cronstable tui`: flags first (usage errors exit 2 before anything else), then the tty check, then the
// TLS files (spec 10 §3.3), then the dashboard itself, loaded by a dynamic import so Ink and React are evaluated only here.
import { ClientTlsError, insecureExtras, loadClientTls } from '../http/client-tls.ts';
import type { CliIo } from '../util/cli-io.ts';
import { tuneHeap } from '../util/heap.ts';
import { parseTuiArgs, TUI_USAGE, TuiArgError } from './args.ts';

export interface TtyProbe {
  stdin: boolean;
  stdout: boolean;
}

export async function runTuiCommand(
  argv: string[],
  io: CliIo,
  tty: TtyProbe = { stdin: Boolean(process.stdin.isTTY), stdout: Boolean(process.stdout.isTTY) },
): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.out(TUI_USAGE);
    return 0;
  }
  let opts: ReturnType<typeof parseTuiArgs>;
  try {
    opts = parseTuiArgs(argv, process.env);
  } catch (e) {
    if (!(e instanceof TuiArgError)) throw e;
    io.err(`${TUI_USAGE}cronstable tui: error: ${e.message}\n`);
    return 2;
  }
  if (!tty.stdin || !tty.stdout) {
    const which = !tty.stdin && !tty.stdout ? 'stdin and stdout are' : !tty.stdin ? 'stdin is' : 'stdout is';
    io.err(`cronstable tui: an interactive terminal is required (${which} not a tty)\n`);
    return 2;
  }
  if (opts.tls) {
    try {
      opts.tlsOptions = loadClientTls(opts.tls);
    } catch (e) {
      if (!(e instanceof ClientTlsError)) throw e;
      io.err(`cronstable tui: ${e.reason} (${e.material})\n`);
      return 2;
    }
    if (opts.tls.insecure)
      io.err(
        'warning: --insecure disables certificate verification; the bearer token is still sent, so it reaches whoever answers\n',
      );
    for (const w of insecureExtras(opts.tls)) io.err(`${w}\n`);
  }
  // Before the import: V8 reads these when it compiles Ink's WebAssembly and as the young generation grows.
  tuneHeap();
  const { runTui } = await import('./app/run.tsx');
  return runTui(opts);
}
