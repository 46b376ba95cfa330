// The tour's statsd sink: a UDP listener that parses what jobs push (counters, gauges, timers,
// sets) and serves it as Prometheus text on `GET /metrics`, the stand-in for statsd-exporter.
import { createSocket, type Socket } from 'node:dgram';
import { createServer } from 'node:http';
import { close, listen, sendJson, sendText } from './http.ts';
import { parseStatsd, StatsdRegistry, type StatsdSample } from './statsd-text.ts';

export interface StatsdSinkOptions {
  host?: string;
  /** UDP port the jobs push to (0: any free port). */
  udpPort?: number;
  /** HTTP port of `/metrics` (0: any free port). */
  httpPort?: number;
  /** One line per rejected statsd line (default: nothing). */
  log?: (line: string) => void;
}

export interface StatsdSink {
  host: string;
  udpPort: number;
  httpPort: number;
  /** `http://host:httpPort` */
  url: string;
  /** `url + /metrics` */
  metricsUrl: string;
  registry: StatsdRegistry;
  /** The newest samples received, oldest first (at most 1000). */
  samples: (StatsdSample & { at: number; from: string })[];
  stop(): Promise<void>;
}

const KEEP = 1000;

export async function startStatsdSink(opts: StatsdSinkOptions = {}): Promise<StatsdSink> {
  const host = opts.host ?? '127.0.0.1';
  const registry = new StatsdRegistry();
  const samples: StatsdSink['samples'] = [];
  const udp: Socket = createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    registry.packets++;
    const parsed = parseStatsd(msg.toString('utf8'));
    registry.add(parsed.samples);
    registry.rejectedLines += parsed.rejected.length;
    for (const r of parsed.rejected) opts.log?.(`statsd: rejected '${r.line}': ${r.why}`);
    const at = Date.now();
    for (const s of parsed.samples) samples.push({ ...s, at, from: `${rinfo.address}:${rinfo.port}` });
    if (samples.length > KEEP) samples.splice(0, samples.length - KEEP);
  });
  const udpPort = await new Promise<number>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) =>
      reject(new Error(`statsd sink: cannot bind udp ${host}:${opts.udpPort ?? 0} (${e.code ?? e.message})`));
    udp.once('error', onError);
    udp.bind(opts.udpPort ?? 0, host, () => {
      udp.off('error', onError);
      resolve(udp.address().port);
    });
  });
  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'GET only' });
    if (path === '/metrics') return sendText(res, 200, 'text/plain; version=0.0.4', registry.render());
    if (path === '/samples') return sendJson(res, 200, samples);
    if (path === '/')
      return sendText(
        res,
        200,
        'text/plain',
        `statsd sink: push UDP to ${host}:${udpPort}; Prometheus text at /metrics, raw samples at /samples\n`,
      );
    return sendJson(res, 404, { error: `no route ${path}` });
  });
  let httpPort: number;
  try {
    httpPort = await listen(http, host, opts.httpPort ?? 0, 'statsd sink');
  } catch (e) {
    udp.close();
    throw e;
  }
  const url = `http://${host}:${httpPort}`;
  return {
    host,
    udpPort,
    httpPort,
    url,
    metricsUrl: `${url}/metrics`,
    registry,
    samples,
    stop: async () => {
      await new Promise<void>((r) => udp.close(() => r()));
      await close(http);
    },
  };
}
