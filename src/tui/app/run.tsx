// Runs the dashboard on the process's terminal: prefs, terminal modes, the Ink render, the loops, and the one
// way out (teardown, then the exit code). Loaded only by `cronstable tui` after the tty check, so neither the
// daemon nor any other verb evaluates Ink or React.
import { render } from 'ink';
import type { TuiOptions } from '../args.ts';
import { ApiClient } from '../data/client.ts';
import { pipeToClipboard } from '../data/clipboard.ts';
import { loadPrefs, prefsPath, savePrefs, startPrefs } from '../data/prefs.ts';
import { Terminal } from '../terminal.ts';
import { asciiByDefault } from '../text/glyphs.ts';
import { colourDepth, parseThemeName } from '../text/theme.ts';
import { bootDue, runBoot } from '../views/boot/boot.ts';
import { VIEWS } from '../views/registry.ts';
import { App } from './App.tsx';
import { Controller } from './controller.ts';
import { KeyInput } from './keyinput.ts';
import { Painter } from './painter.ts';
import { dispatchPaste } from './paste.ts';
import { createState, Store } from './state.ts';

export function runTui(opts: TuiOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const path = prefsPath(env);
  const start = startPrefs(loadPrefs(path), opts.theme === null ? null : parseThemeName(opts.theme));
  const prefs = start.prefs;
  if (start.save) savePrefs(path, prefs);
  const stdout = process.stdout;
  const stdin = process.stdin;
  const depth = colourDepth(env);
  const size = () => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });
  const mono = () => performance.now();
  const initial = createState(
    {
      now: Date.now(),
      mono: mono(),
      ...size(),
      prefs,
      pollMs: opts.pollMs ?? prefs.poll_ms,
      ascii: opts.ascii || prefs.ascii || env.TERM === 'dumb' || asciiByDefault(env),
    },
    { wallboard: opts.tv },
  );

  const store = new Store(initial);
  const terminal = new Terminal(stdin);
  const painter = new Painter((text) => stdout.write(text));
  return new Promise<number>((resolve) => {
    let done = false;
    let ink: ReturnType<typeof render> | null = null;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      ctl.stop();
      painter.stop();
      ink?.unmount();
      terminal.restore();
      terminal.dispose();
      terminal.releaseStderr();
      stdout.off('resize', onResize);
      stdin.pause();
      resolve(code);
      // Keep-alive sockets and the SSE reader must not hold the terminal: the exit code is final.
      setTimeout(() => process.exit(code), 250).unref();
    };
    const ctl = new Controller({
      client: new ApiClient(opts.url, opts.token, opts.tlsOptions ?? null),
      store,
      now: Date.now,
      mono,
      prefsPath: path,
      writeRaw: (text) => stdout.write(text),
      clipboard: (text) => pipeToClipboard(text),
      terminalEnv: env,
      quit: finish,
      afterPoll: (c) => VIEWS.afterPoll(c),
    });
    const fullRepaint = () => {
      painter.invalidate();
      store.set(size());
    };
    const onResize = () => fullRepaint();
    const hooks = {
      exit: (code: number) => {
        finish(code);
        process.exitCode = code;
      },
      resumed: () => {
        fullRepaint();
        ctl.resumed();
      },
    };
    terminal.install(hooks);
    terminal.holdStderr();
    terminal.enter();
    stdout.on('resize', onResize);
    // Ink reads keys from a stream without the bracketed pastes, which type into the focused input (Q25).
    const keys = new KeyInput(stdin, (text) => dispatchPaste(ctl, text));
    ink = render(
      <App ctl={ctl} depth={depth} painter={painter} hooks={{ suspend: () => terminal.suspend(hooks) }} />,
      {
        stdout,
        stdin: keys as unknown as NodeJS.ReadStream,
        exitOnCtrlC: false,
        patchConsole: false,
        maxFps: 30,
      },
    );
    if (bootDue(opts.boot, prefs, Date.now()))
      void runBoot(ctl, opts.url).then(() => done || ctl.start(opts.job));
    else ctl.start(opts.job);
  });
}
