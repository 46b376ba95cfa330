import { loadConfig } from './src/config/load.ts';
import { launch } from './src/exec/index.ts';
import { Scheduler } from './src/scheduler/scheduler.ts';
import { RealClock } from './src/util/clock.ts';
import { Logger } from './src/util/log.ts';
import { Listeners } from './src/web/context.ts';
import { startWebServer } from './src/web/server.ts';
import { jobSetId } from './src/cluster/jobset.ts';
const cfg = loadConfig('/tmp/ws/jobs.yaml');
const runs = new Listeners<any>(); const slots = new Listeners<any>();
const clock = new RealClock();
const log = new Logger('cronstable');
const s = new Scheduler({ clock, log, launch, report: async () => {}, onRun: runs.emit, onSlot: slots.emit, launchOptions: { sinks: { stdout: () => {}, stderr: () => {} } } });
s.load(cfg.jobs); s.start();
const ctx = { version: '0.1.0', hostname: 'h', clock, config: () => cfg, jobSetId: () => jobSetId(cfg.jobs), scheduler: s, store: null, onRun: runs.subscribe, onSlot: slots.subscribe, cluster: () => ({ enabled: false, nodeName: '', leader: null, peers: [] }) };
const srv = await startWebServer(ctx as any, cfg.web!, log);
const base = srv.urls[0];
for (const p of ['/version', '/status', '/jobs', '/job-set-id', '/cluster', '/node', '/schedule/preview?expr=30%202%20*%20*%20*&tz=America/New_York&count=3', '/schedule/duplicates', '/schedule/pressure', '/calendar.ics?days=40', '/metrics', '/nope', '/dags', '/dags/x/runs', '/']) {
  const r = await fetch(base + p, p === '/status' ? { headers: { accept: 'application/json' } } : {});
  const t = await r.text();
  console.log('==', p, r.status, r.headers.get('content-type'), r.headers.get('x-test'), '\n', t.slice(0, 600));
}
await new Promise(r => setTimeout(r, 5500));
const r = await fetch(base + '/jobs/hello/logs'); console.log((await r.text()).slice(0, 500));
const m = await fetch(base + '/metrics'); console.log((await m.text()).slice(0, 3000));
await srv.stop(); await s.stop(1000);
