// GET /metrics (spec 06 §6.1, spec 10 §4.10): the daemon's registry, text or OpenMetrics by Accept,
// gzipped when the scraper accepts it. One rendering per format is shared while it stands (at most a
// second, never past a local change), and its gzip is made once, off the event loop, so a fleet of
// scrapers or a retrying one costs one render.
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import type { Stamp } from '../../api/shared-body.ts';
import { acceptsGzip, GZIP_MIN_BYTES } from '../conditional.ts';
import type { WebEnv } from '../respond.ts';

const gzipAsync = promisify(gzip);
const enc = new TextEncoder();

/** What `new Response()` accepts (the DOM `BodyInit`, which Node's types do not declare globally). */
type ResponseBody = ConstructorParameters<typeof Response>[0];

interface Product {
  contentType: string;
  bytes: Uint8Array;
  packed: Promise<Uint8Array> | null;
}

export function metricsRoute(app: Hono<WebEnv>, d: ApiDeps): void {
  const metrics = d.metrics;
  if (!metrics) return;
  const watch = d.bodies.watch;
  // Keyed by format (OpenMetrics or not); a render in flight is shared too.
  const held = new Map<boolean, { stamp: Stamp; product: Promise<Product> }>();

  const productFor = (openMetrics: boolean, accept: string | undefined): Promise<Product> => {
    const h = held.get(openMetrics);
    if (h && watch.fresh(h.stamp)) return h.product;
    const stamp = watch.stamp();
    const product = metrics
      .exposition(accept)
      .then(({ contentType, body }): Product => ({ contentType, bytes: enc.encode(body), packed: null }));
    held.set(openMetrics, { stamp, product });
    product.catch(() => {
      if (held.get(openMetrics)?.product === product) held.delete(openMetrics);
    });
    return product;
  };

  app.get('/metrics', async (c) => {
    const accept = c.req.header('accept');
    const p = await productFor((accept ?? '').includes('application/openmetrics-text'), accept);
    const headers: Record<string, string> = {
      'content-type': p.contentType,
      vary: 'accept, accept-encoding',
    };
    if (p.bytes.length >= GZIP_MIN_BYTES && acceptsGzip(c.req.header('accept-encoding'))) {
      p.packed ??= gzipAsync(p.bytes, { level: constants.Z_BEST_SPEED });
      headers['content-encoding'] = 'gzip';
      return new Response((await p.packed) as ResponseBody, { headers });
    }
    return new Response(p.bytes as ResponseBody, { headers });
  });
}
