// A thin layer over Hono's router that remembers every path and its methods, so a known path
// asked with the wrong method answers 405 with `Allow` (Hono alone answers 404).
import type { Handler, Hono } from 'hono';
import type { WebEnv } from './respond.ts';

interface Known {
  re: RegExp;
  methods: Set<string>;
}

function patternOf(path: string): RegExp {
  const parts = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}$`);
}

export class Routes {
  private readonly known = new Map<string, Known>();

  constructor(readonly app: Hono<WebEnv>) {}

  private note(method: string, path: string): void {
    let k = this.known.get(path);
    if (!k) {
      k = { re: patternOf(path), methods: new Set() };
      this.known.set(path, k);
    }
    k.methods.add(method);
    if (method === 'GET') k.methods.add('HEAD');
  }

  get(path: string, handler: Handler<WebEnv>): void {
    this.app.get(path, handler);
    this.note('GET', path);
  }

  post(path: string, handler: Handler<WebEnv>): void {
    this.app.post(path, handler);
    this.note('POST', path);
  }

  /** The methods a path accepts, or null when no route has that path. */
  allowed(path: string): string[] | null {
    const methods = new Set<string>();
    for (const k of this.known.values()) if (k.re.test(path)) for (const m of k.methods) methods.add(m);
    return methods.size > 0 ? [...methods].sort() : null;
  }
}
