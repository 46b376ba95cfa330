// Spec 09 §7.6, vector 36: `report.eventlog` loads on Linux, is checked when enabled, and is
// announced by one WARNING; a block equal to its defaults leaves the job-set id alone.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobSetId } from '../../src/cluster/jobset.ts';
import { loadConfig } from '../../src/config/load.ts';
import { configMessageOf } from '../helpers/thrown.ts';
import { writeTree } from '../helpers/tmp.ts';

const load = (yaml: string) => {
  const dir = writeTree({ 'conf.yaml': yaml });
  return loadConfig(join(dir, 'conf.yaml'), { cwd: dir, euid: 0, env: {} });
};
const job = (name: string, extra = '') =>
  `  - name: ${name}\n    command: "true"\n    schedule: "* * * * *"\n${extra}`;
const eventlog = (holder: string, lines: string) =>
  `    ${holder}:\n      report:\n        eventlog:\n${lines
    .split('\n')
    .map((l) => `          ${l}`)
    .join('\n')}\n`;
const warningsOf = (yaml: string) =>
  load(yaml)
    .warnings.filter((w) => w.message.startsWith('report.eventlog'))
    .map((w) => `${w.level} ${w.logger} ${w.message}`);

describe('report.eventlog on Linux (spec 09 §7.6)', () => {
  it('v36: an enabled block loads with one WARNING; a path-like source is refused', () => {
    expect(warningsOf(`jobs:\n${job('J', eventlog('onSuccess', 'enabled: true'))}`)).toEqual([
      'warning cronstable.config report.eventlog is enabled (job J) but there is no Windows Event Log on this platform, so those reports are dropped; the rest of each report block still fires normally',
    ]);
    const msg = configMessageOf(
      load,
      `jobs:\n${job('J', eventlog('onSuccess', 'enabled: true\nsource: app/x'))}`,
    );
    expect(msg).toContain(
      "conf.yaml:9:11: jobs[0].onSuccess.report.eventlog.source: J: report.eventlog.source must be a non-empty name with no path separator (it names a registry key under the event log, not a path); got 'app/x'",
    );
  });

  it('refuses an empty source, a backslash and the name of a log in any case', () => {
    expect(
      configMessageOf(load, `jobs:\n${job('J', eventlog('onFailure', 'enabled: true\nsource: ""'))}`),
    ).toContain(
      "J: report.eventlog.source must be a non-empty name with no path separator (it names a registry key under the event log, not a path); got ''",
    );
    expect(
      configMessageOf(load, `jobs:\n${job('J', eventlog('onFailure', 'enabled: true\nsource: a\\b'))}`),
    ).toContain("got 'a\\b'");
    expect(
      configMessageOf(
        load,
        `jobs:\n${job('J', eventlog('onPermanentFailure', 'enabled: true\nsource: Application'))}`,
      ),
    ).toContain(
      "J: report.eventlog.source 'Application' is the name of a LOG, not of a source within one; choose a source name such as 'cronstable'",
    );
  });

  it('checks enabled blocks only; a disabled one loads silently', () => {
    const cfg = load(
      `jobs:\n${job('J', eventlog('onSuccess', 'enabled: false\nsource: SYSTEM\nincludeOutput: true'))}`,
    );
    expect(cfg.warnings.filter((w) => w.message.startsWith('report.eventlog'))).toEqual([]);
    expect(cfg.jobs[0]?.onSuccess.report.eventlog).toEqual({
      enabled: false,
      source: 'SYSTEM',
      includeOutput: true,
    });
  });

  it('reaches jobs from defaults:, names each holder once, sorted, and rejects wrong types', () => {
    const yaml = `defaults:\n${eventlog('onFailure', 'enabled: true').replace(/^ {4}/gm, '  ')}jobs:\n${job('b')}${job('a', eventlog('onSuccess', 'enabled: true'))}`;
    const cfg = load(yaml);
    expect(cfg.jobs.map((j) => j.onFailure.report.eventlog?.source)).toEqual(['cronstable', 'cronstable']);
    expect(warningsOf(yaml)).toEqual([
      expect.stringContaining('report.eventlog is enabled (job a, job b) but'),
    ]);
    expect(configMessageOf(load, `jobs:\n${job('J', eventlog('onSuccess', 'enabled: 3'))}`)).toContain(
      'jobs[0].onSuccess.report.eventlog.enabled',
    );
    expect(configMessageOf(load, `jobs:\n${job('J', eventlog('onSuccess', 'level: 3'))}`)).toContain(
      'jobs[0].onSuccess.report.eventlog.level',
    );
  });

  it('a block equal to its defaults keeps the job-set id; an enabled or tuned one changes it', () => {
    const idOf = (extra: string) => jobSetId(load(`jobs:\n${job('J', extra)}`).jobs);
    const plain = idOf('');
    expect(idOf(eventlog('onSuccess', 'enabled: false\nsource: cronstable\nincludeOutput: false'))).toBe(
      plain,
    );
    expect(idOf(eventlog('onSuccess', 'enabled: true'))).not.toBe(plain);
    expect(idOf(eventlog('onSuccess', 'source: other'))).not.toBe(plain);
  });
});
