// Automatic garbage collection of the store (spec 03 §9): once a day (first pass a few minutes
// after start), in a child process running `cronstable state gc`, so a slow pass over a large
// shared store never stalls the daemon's timers or lease renewals.
import { spawn } from 'node:child_process';
import type { Logger } from '../util/log.ts';
import { selfCommand } from './shim.ts';

export interface GcSchedule {
  stop(): void;
}

export function scheduleStateGc(
  configPath: string,
  log: Logger,
  opts: { firstDelayMs?: number; intervalMs?: number; command?: string[] } = {},
): GcSchedule {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const runOnce = () => {
    const [cmd, ...args] = opts.command ?? selfCommand();
    const child = spawn(cmd!, [...args, '-c', configPath, 'state', 'gc'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('exit', (code) => {
      for (const line of out.trim().split('\n').filter(Boolean)) log.info(`state gc: ${line}`);
      if (code !== 0) log.warning(`state gc: the pass exited with code ${code}`);
      if (!stopped) timer = setTimeout(runOnce, opts.intervalMs ?? 24 * 3600_000).unref();
    });
  };
  timer = setTimeout(runOnce, opts.firstDelayMs ?? 10 * 60_000).unref();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
