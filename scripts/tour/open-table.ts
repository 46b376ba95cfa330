// The "what to open" table `npm run grand-tour` prints once the nodes are up.
import { join } from 'node:path';
import { BUNDLE } from '../fleet/fleet.ts';
import type { Tour } from './tour.ts';

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(w)}  ${b}`).join('\n');
}

/** The "what to open" table (README "Grand tour" shows the same). */
export function openTable(tour: Tour): string {
  const a = tour.nodes[0]!;
  const auth = tour.webToken ? ` -H 'Authorization: Bearer ${tour.webToken}'` : '';
  const rows: [string, string][] = tour.nodes.map((n) => [`${n.id} dashboard`, `${n.url}/`]);
  rows.push(['Prometheus metrics (per node)', `${a.url}/metrics`]);
  if (tour.sinks) {
    const { smtp, webhook, statsd } = tour.sinks;
    rows.push(['On-call inbox (mail sink)', `${smtp.url}   (SMTP ${smtp.host}:${smtp.smtpPort})`]);
    rows.push(['Job metrics (statsd sink)', `${statsd.metricsUrl}   (UDP ${statsd.host}:${statsd.udpPort})`]);
    rows.push(['Webhook sink', `${webhook.requestsUrl}   (each request is also printed here)`]);
  }
  rows.push(['Control API', `curl${auth} ${a.url}/status`]);
  rows.push(['Shared state store', tour.stateDb]);
  rows.push(['Offline state admin', `node ${BUNDLE} -c ${tour.configDir(a.id)} state check`]);
  rows.push(['Node logs', join(tour.dir, 'nodes', '<node>', 'daemon.log')]);
  return table(rows);
}
