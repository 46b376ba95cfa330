// The one /proc/<pid>/stat reader and monitorResources switch that the job and DAG task samplers share.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { monitorSettings, parseProcStat } from '../../src/exec/procstat.ts';

describe('parseProcStat', () => {
  it('counts fields after the last ")" of a command name holding spaces and parentheses', () => {
    const line =
      '4242 (sh (x) y) S 17 4240 4240 0 -1 4194560 120 0 0 0 30 12 5 3 20 0 1 0 999 4321000 812 18446744073709551615';
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      ppid: 17,
      pgrp: 4240,
      ticks: 42,
      childTicks: 8,
      rssPages: 812,
    });
  });

  it('refuses a truncated or garbled line', () => {
    expect(parseProcStat('12 (sh) S 1 12')).toBeNull();
    expect(parseProcStat('garbage')).toBeNull();
  });

  it.runIf(process.platform === 'linux')('reads this process from the real /proc', () => {
    const st = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    expect(st?.pid).toBe(process.pid);
    expect(st?.ppid).toBe(process.ppid);
    expect(st?.rssPages).toBeGreaterThan(0);
  });
});

describe('monitorSettings', () => {
  it('reads true, false and the object form', () => {
    expect(monitorSettings(true)).toEqual({ enabled: true, interval: 1, history: 20 });
    expect(monitorSettings(false).enabled).toBe(false);
    expect(monitorSettings(undefined).enabled).toBe(false);
    expect(monitorSettings({ interval: 0.5 })).toEqual({ enabled: true, interval: 0.5, history: 20 });
    expect(monitorSettings({ enabled: false, interval: 2 }).enabled).toBe(false);
  });
});
