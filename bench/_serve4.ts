// TEMPORARY driver: the serve bench's measureServe over old/new bundle/binary, interleaved.
import { execFileSync } from 'node:child_process';
import { measureServe, medianFigures, type ServeFigures, serveMetrics } from './serve.bench.ts';
const PAIRS = Number(process.env.SERVE_PAIRS ?? 3);
const builds: Record<string, string[]> = {
  'old-bundle': [process.execPath, '/tmp/calmem/old/dist/cronstable.mjs'],
  'old-binary': ['/tmp/calmem/old/dist/cronstable'],
  'new-bundle': [process.execPath, `${import.meta.dirname}/../dist/cronstable.mjs`],
  'new-binary': [`${import.meta.dirname}/../dist/cronstable`],
};
const runs: Record<string, ServeFigures[]> = {};
for (let i = 0; i < PAIRS; i++)
  for (const [name, cmd] of Object.entries(builds)) {
    const f = await measureServe(cmd, (l) => process.stderr.write(`${name}: ${l}\n`));
    (runs[name] ??= []).push(f);
    process.stdout.write(`${JSON.stringify({ name, steady: +f.rssSteadyMb.toFixed(1), peak: +f.rssPeakMb.toFixed(1), calendar_s: +(f.medians.calendar - f.medians.version).toFixed(4), load: execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim() })}\n`);
  }
for (const [name, rs] of Object.entries(runs)) {
  const m = medianFigures(rs);
  process.stdout.write(`${name} MEDIAN ${JSON.stringify(serveMetrics(name, m).map((x) => [x.metric, x.value]))}\n`);
}
