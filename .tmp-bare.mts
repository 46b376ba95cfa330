import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';
const body = Buffer.alloc(101178, 'a');
const srv = createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(body); });
await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
const port = (srv.address() as any).port;
const src = (await import('node:fs')).readFileSync('bench/web.bench.ts', 'utf8');
const script = src.slice(src.indexOf('const LOAD_SCRIPT = `') + 21, src.indexOf('`;\n\nfunction loadTest'));
for (const clients of [50, 10, 1]) {
const w = new Worker(script, { eval: true, workerData: { port, clients, requests: 200, warmup: 20, path: '/status' } });
const t0 = performance.now();
const m: any = await new Promise((r) => w.once('message', r));
const s = m.samples.sort((a: number, b: number) => a - b);
console.log(clients, 'clients: p50', s[Math.floor(s.length / 2)].toFixed(2), 'p99', s[Math.floor(s.length * 0.99)].toFixed(2), 'wall', (performance.now() - t0).toFixed(0));
await w.terminate();
}
srv.close();
