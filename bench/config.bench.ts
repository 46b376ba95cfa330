// config.parse_yaml_3k: load + validate a 3,000-job YAML file (spec budget 0.5 s; reference 4.4 s).
// config.interpolate_3k: the spec 09 §1 interpolation pass alone over that file's validated tree
// (its share of parse_yaml_3k must stay within 5%).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSchema } from '../src/config/file-schema.ts';
import { interpolateFile } from '../src/config/interpolate.ts';
import { loadConfig } from '../src/config/load.ts';
import { validateRoot } from '../src/config/validators.ts';
import { parseStrictYaml } from '../src/config/yaml.ts';
import { bestOf, type Metric } from './metric.ts';

const SCHEDULES = [
  '*/5 * * * *',
  '0 * * * *',
  '30 2 * * *',
  '0 0 1 * *',
  '15 9 * * mon-fri',
  '0 0 LW * *',
  '*/10 * * * * * *',
  '0 6 15W * *',
];
const ZONES = ['', 'America/New_York', 'Europe/London', 'Asia/Tokyo'];

/** A realistic job file: varied schedules, zones, retries, reporters and environment. */
export function generateJobFile(count: number): string {
  const out = [
    'defaults:',
    '  captureStdout: true',
    '  environment:',
    '    - key: PLATFORM',
    '      value: bench',
    'jobs:',
  ];
  for (let i = 0; i < count; i++) {
    out.push(`  - name: job-${i}`);
    out.push(`    command: echo "job ${i} on $HOSTNAME" && sleep 0`);
    if (i % 7 === 0) {
      out.push('    schedule:', `      minute: "${i % 60}"`, `      hour: "${i % 24}"`);
    } else out.push(`    schedule: "${SCHEDULES[i % SCHEDULES.length]}"`);
    const zone = ZONES[i % ZONES.length];
    if (zone) out.push(`    timezone: ${zone}`);
    if (i % 3 === 0) out.push('    concurrencyPolicy: Forbid');
    if (i % 5 === 0)
      out.push(
        '    onFailure:',
        '      retry:',
        '        maximumRetries: 3',
        '        initialDelay: 1',
        '        maximumDelay: 60',
        '        backoffMultiplier: 2',
        '      report:',
        '        webhook:',
        '          url:',
        '            value: http://127.0.0.1:9/hook',
        '          headers:',
        '            X-Job: bench',
      );
    out.push('    environment:', '      - key: JOB_INDEX', `        value: "${i}"`);
  }
  return `${out.join('\n')}\n`;
}

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-'));
  try {
    const file = join(dir, 'jobs.yaml');
    writeFileSync(file, generateJobFile(3000));
    let jobs = 0;
    const seconds = await bestOf(5, () => {
      jobs = loadConfig(file).jobs.length;
    });
    if (jobs !== 3000) throw new Error(`expected 3000 jobs, loaded ${jobs}`);
    const text = generateJobFile(3000);
    const trees = Array.from(
      { length: 5 },
      () => validateRoot(fileSchema, parseStrictYaml(text, file).source).value,
    );
    const env = { ...process.env, BENCH_UNUSED: 'x' };
    const interpolate = await bestOf(5, () => {
      interpolateFile(trees.pop(), env, file);
    });
    return [
      { metric: 'config.parse_yaml_3k', value: Number(seconds.toFixed(4)), unit: 's', budget: 0.5 },
      { metric: 'config.interpolate_3k', value: Number(interpolate.toFixed(4)), unit: 's', budget: 0.025 },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
