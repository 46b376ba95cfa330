import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './src/config/load.ts';
import { Scheduler } from './src/scheduler/scheduler.ts';
import { Logger } from './src/util/log.ts';
import { Listeners } from './src/web/context.ts';
import { StatusView } from './src/web/status.ts';
import { generateJobFile } from './bench/config.bench.ts';
const dir = mkdtempSync(join(tmpdir(), 'x-')); const file = join(dir, 'j.yaml'); writeFileSync(file, generateJobFile(3000));
const cfg = loadConfig(file);
const clock = { now: () => Date.now(), monotonic: () => performance.now(), setTimer: () => ({ id: 1 }), clearTimer() {} };
const s = new Scheduler({ clock, log: new Logger('x'), launch: () => { throw 1; }, report: async () => {} } as any);
s.load(cfg.jobs); s.start();
const l = new Listeners<any>();
const v = new StatusView({ clock, scheduler: s, onRun: l.subscribe, onSlot: l.subscribe } as any, 0);
for (const kind of ['text', 'json'] as const) {
  let t0 = performance.now(); let b;
  for (let i = 0; i < 200; i++) { b = v.body(kind); }
  console.log(kind, (performance.now() - t0) / 200, 'ms', b!.length);
}
let t0 = performance.now(); for (let i = 0; i < 200; i++) s.status(); console.log('status()', (performance.now() - t0) / 200);
const { Session } = await import('node:inspector/promises');
const sess = new Session(); sess.connect(); await sess.post('Profiler.enable'); await sess.post('Profiler.start');
for (let i = 0; i < 300; i++) s.status();
const { profile } = await sess.post('Profiler.stop') as any;
const self = new Map<string, number>();
const dt = profile.timeDeltas; const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const k = `${n.callFrame.functionName}@${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); });
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 12));
