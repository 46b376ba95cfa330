import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
async function tryit(name: string, mk: () => Worker) {
  const t = Date.now();
  await new Promise<void>((res) => {
    const w = mk();
    w.on('message', (m) => { console.log(name, 'msg', m, Date.now() - t, 'ms'); void w.terminate(); res(); });
    w.on('error', (e) => { console.log(name, 'err', String(e)); res(); });
  });
}
const entry = new URL('./entry.ts', import.meta.url);
await tryit('tsx/esm', () => new Worker(entry, { execArgv: ['--import', 'tsx/esm'] }));
const req = createRequire(import.meta.url);
const api = req.resolve('tsx/esm/api');
console.log('resolved', api);
const apiMjs = api.replace(/\.cjs$/, '.mjs');
const code = `import(${JSON.stringify(pathToFileURL(apiMjs).href)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
await tryit('eval', () => new Worker(code, { eval: true, workerData: { a: 2 } }));
