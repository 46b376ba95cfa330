import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './src/config/load.ts';
import { Scheduler } from './src/scheduler/scheduler.ts';
import { Logger, setLogLevel, LEVELS } from './src/util/log.ts';
import { Listeners } from './src/web/context.ts';
import { startWebServer } from './src/web/server.ts';
import { generateJobFile } from './bench/config.bench.ts';
setLogLevel(LEVELS.ERROR);
const dir = mkdtempSync(join(tmpdir(), 'x-')); const file = join(dir, 'j.yaml'); writeFileSync(file, generateJobFile(3000) + 'web:\n  listen:\n    - http://127.0.0.1:0\n');
const cfg = loadConfig(file);
const clock = { now: () => Date.now(), monotonic: () => performance.now(), setTimer: () => ({ id: 1 }), clearTimer() {} };
const s = new Scheduler({ clock, log: new Logger('x'), launch: () => { throw 1; }, report: async () => {} } as any);
s.load(cfg.jobs); s.start();
const l = new Listeners<any>();
const ctx: any = { version: 'b', hostname: 'b', clock, config: () => cfg, jobSetId: () => 'x', scheduler: s, store: null, onRun: l.subscribe, onSlot: l.subscribe, cluster: () => ({ enabled: false, nodeName: '', leader: null, peers: [] }) };
const srv = await startWebServer(ctx, cfg.web!, new Logger('x'));
for (const p of ['/jobs', '/jobs', '/jobs', '/metrics', '/metrics', '/schedule/pressure', '/schedule/duplicates', '/calendar.ics', '/calendar.ics']) {
  const t0 = performance.now(); const r = await fetch(srv.urls[0] + p, { headers: { 'accept-encoding': 'identity' } }); const b = await r.arrayBuffer();
  console.log(p, r.status, (performance.now() - t0).toFixed(1), 'ms', b.byteLength);
}
await srv.stop(); process.exit(0);
