// The tour's webhook sink: an echo server that logs every request (method, path, headers,
// body) and keeps them for `GET /_sink/requests`. Any other request, any method and path, is a
// webhook: it is recorded and answered 200 with what was received.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { close, listen, readBody, sendJson } from './http.ts';

export interface WebhookHit {
  /** 1, 2, ... in arrival order. */
  id: number;
  /** ISO time of arrival. */
  at: string;
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed, when it was JSON. */
  json?: unknown;
}

export interface WebhookSinkOptions {
  host?: string;
  port?: number;
  /** Where each request is logged (default: nothing; the tour CLI passes stdout). */
  log?: (text: string) => void;
  /** How many requests to keep (default 1000). */
  keep?: number;
}

export interface WebhookSink {
  host: string;
  port: number;
  url: string;
  /** `url + /_sink/requests`: the kept requests as JSON, oldest first. */
  requestsUrl: string;
  hits: WebhookHit[];
  stop(): Promise<void>;
}

export const REQUESTS_PATH = '/_sink/requests';

/** One request as the sink logs it: a header line, the headers, the body. */
export function formatHit(h: WebhookHit): string {
  const headers = Object.entries(h.headers)
    .map(([k, v]) => `  ${k}: ${Array.isArray(v) ? v.join(', ') : v}`)
    .join('\n');
  return `webhook #${h.id} ${h.at} ${h.method} ${h.path}\n${headers}\n${h.body ? `${h.body.trimEnd()}\n` : ''}`;
}

export async function startWebhookSink(opts: WebhookSinkOptions = {}): Promise<WebhookSink> {
  const host = opts.host ?? '127.0.0.1';
  const keep = opts.keep ?? 1000;
  const hits: WebhookHit[] = [];
  let next = 1;
  const server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    if (path.split('?')[0] === REQUESTS_PATH) {
      if (req.method === 'GET') return sendJson(res, 200, hits);
      if (req.method === 'DELETE') {
        hits.length = 0;
        return sendJson(res, 200, { cleared: true });
      }
      return sendJson(res, 405, { error: `${REQUESTS_PATH} takes GET or DELETE` });
    }
    const body = (await readBody(req)).toString('utf8');
    const hit: WebhookHit = {
      id: next++,
      at: new Date().toISOString(),
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
    };
    if (/json/i.test(String(req.headers['content-type'] ?? ''))) {
      try {
        hit.json = JSON.parse(body);
      } catch {
        // kept as text: the log shows what was really sent
      }
    }
    hits.push(hit);
    if (hits.length > keep) hits.splice(0, hits.length - keep);
    opts.log?.(formatHit(hit));
    sendJson(res, 200, { ok: true, received: { id: hit.id, method: hit.method, path: hit.path } });
  });
  const port = await listen(server, host, opts.port ?? 0, 'webhook sink');
  const url = `http://${host}:${port}`;
  return { host, port, url, requestsUrl: `${url}${REQUESTS_PATH}`, hits, stop: () => close(server) };
}
