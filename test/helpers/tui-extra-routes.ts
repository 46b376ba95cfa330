// Extra routes for the TUI's component tests that open every surface: one manual DAG with no runs (its POSTs
// recorded) and a small durable-state summary. For `FixtureDaemon.extra`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiDag } from '../../src/dashboard/dag.ts';

export const ETL_DAG = {
  name: 'etl',
  enabled: true,
  scheduled: false,
  schedule: null,
  retainRuns: 10,
  tasks: [
    { id: 'extract', type: 'task', dependsOn: [], triggerRule: 'all_success', retries: 0, mapped: false },
  ],
  latestRun: null,
} as unknown as ApiDag;

/** The routes, recording each DAG POST's URL in `posts`. */
export function dagAndStateRoutes(posts: string[]) {
  return (req: IncomingMessage, url: string, res: ServerResponse): boolean => {
    const json = (v: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      return true;
    };
    if (req.method === 'POST' && url.startsWith('/dags/')) {
      req.resume();
      req.on('end', () => {
        posts.push(url);
        if (url === '/dags/etl/trigger') json({ dag: 'etl', runKey: 'manual-9' });
        else json({ ok: true });
      });
      return true;
    }
    if (url === '/dags') return json([ETL_DAG]);
    if (url.startsWith('/dags/etl/runs?')) return json({ runs: [] });
    if (url === '/state') return json({ enabled: true, view: 'metadata', documents: [] });
    return false;
  };
}
