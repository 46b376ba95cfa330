import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';
const body = Buffer.alloc(Number(process.env.BODY ?? 101178), 'a');
const srv = createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length }); res.end(body); });
await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
const port = (srv.address() as any).port;
const script = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, clients, requests, path } = workerData;
function client() {
  return new Promise((resolve, reject) => {
    const out = [];
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0); let need = -1; let t0 = 0; let n = 0;
    const send = () => { t0 = performance.now(); sock.write('GET ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'); };
    sock.on('connect', send);
    sock.on('error', reject);
    sock.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (need < 0) {
          const end = buf.indexOf('\\r\\n\\r\\n');
          if (end < 0) return;
          const head = buf.subarray(0, end).toString('latin1');
          const m = /content-length: *(\\d+)/i.exec(head);
          if (!/^HTTP\\/1\\.1 200/.test(head) || !m) return reject(new Error(head));
          need = end + 4 + Number(m[1]);
        }
        if (buf.length < need) return;
        buf = buf.subarray(need); need = -1;
        out.push(performance.now() - t0);
        if (++n >= requests) { sock.end(); return resolve(out); }
        send();
      }
    });
  });
}
Promise.all(Array.from({ length: clients }, client)).then((all) => parentPort.postMessage({ samples: all.flat() }), (e) => parentPort.postMessage({ error: String(e) }));
`;
for (const clients of [50, 10, 1]) {
const w = new Worker(script, { eval: true, workerData: { port, clients, requests: 220, path: '/status' } });
const t0 = performance.now();
const elu0 = performance.eventLoopUtilization();
const m: any = await new Promise((r) => w.once('message', r));
const elu = performance.eventLoopUtilization(elu0);
if (m.error) throw new Error(m.error);
const s = m.samples.sort((a: number, b: number) => a - b);
console.log(clients, 'clients: p50', s[Math.floor(s.length / 2)].toFixed(2), 'p99', s[Math.floor(s.length * 0.99)].toFixed(2), 'wall', (performance.now() - t0).toFixed(0), 'server ELU', elu.utilization.toFixed(2));
await w.terminate();
}
srv.close();
