import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
const entry = new URL('./entry.ts', import.meta.url);
const api = createRequire(import.meta.url).resolve('tsx/esm/api');
const code = `require(${JSON.stringify(api)}).register(); import(${JSON.stringify(entry.href)});`;
const t = Date.now();
const w = new Worker(code, { eval: true, workerData: { a: 3 } });
w.on('message', (m) => { console.log('msg', m, Date.now() - t, 'ms'); void w.terminate(); });
w.on('error', (e) => console.log('err', String(e)));
