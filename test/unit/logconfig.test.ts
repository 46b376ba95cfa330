import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoggingSection } from '../../src/config/file-schema.ts';
import { buildLogRouter, formatRecord, strftime } from '../../src/config/logconfig.ts';
import { getLogger, type LogRecord, setRouter } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';

const record = (over: Partial<LogRecord> = {}): LogRecord => ({
  level: 20,
  levelName: 'INFO',
  logger: 'cronstable',
  message: 'hello',
  timeMs: Date.UTC(2026, 6, 5, 9, 0, 1, 23),
  ...over,
});

function capture(section: LoggingSection) {
  const out: string[] = [];
  const err: string[] = [];
  const warnings: string[] = [];
  setRouter(
    buildLogRouter(section, (w) => warnings.push(w), {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    }),
  );
  return { out, err, warnings };
}

afterEach(() => setRouter(null));

describe('logging section (spec 01 §1.9)', () => {
  it('formats %-style fields with width and alignment', () => {
    expect(formatRecord('%(levelname)-8s|%(name)s: %(message)s %%', undefined, record())).toBe(
      'INFO    |cronstable: hello %',
    );
    expect(formatRecord('[%(levelname)8s]', undefined, record())).toBe('[    INFO]');
    expect(formatRecord('%(processName)s %(threadName)s', undefined, record())).toBe(
      'MainProcess MainThread',
    );
    expect(formatRecord('%(asctime)s', '%Y', record())).toBe(String(new Date(record().timeMs).getFullYear()));
    expect(formatRecord('%(asctime)s', undefined, record())).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,023$/);
    expect(strftime('%j %%', Date.UTC(2026, 0, 1, 12))).toBe('001 %');
  });

  it('routes to a stdout handler with the grand tour format and levels', () => {
    const c = capture({
      version: 1,
      disable_existing_loggers: false,
      formatters: {
        detailed: {
          format: '%(asctime)s [%(levelname)s] %(name)s: %(message)s',
          datefmt: '%Y-%m-%d %H:%M:%S',
        },
      },
      handlers: {
        console: {
          class: 'logging.StreamHandler',
          stream: 'ext://sys.stdout',
          formatter: 'detailed',
          level: 'INFO',
        },
      },
      root: { level: 'INFO', handlers: ['console'] },
    });
    getLogger('cronstable').info('Starting job x');
    getLogger('cronstable.config').debug('not shown');
    expect(c.out).toHaveLength(1);
    expect(c.out[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[INFO\] cronstable: Starting job x\n$/);
    expect(c.err).toHaveLength(0);
  });

  it('disables the daemon loggers unless disable_existing_loggers is false or they are configured', () => {
    const c = capture({
      version: 1,
      handlers: { e: { class: 'logging.StreamHandler' } },
      root: { level: 'DEBUG', handlers: ['e'] },
    });
    getLogger('cronstable').error('silenced');
    expect(c.err).toHaveLength(0);
    const d = capture({
      version: 1,
      handlers: { e: { class: 'logging.StreamHandler' } },
      loggers: { cronstable: { level: 'WARNING' } },
      root: { level: 'DEBUG', handlers: ['e'] },
    });
    getLogger('cronstable').info('below the logger level');
    getLogger('cronstable.config').warning('child of a configured logger');
    expect(d.err).toEqual(['child of a configured logger\n']);
  });

  it('writes to a file handler and warns about unsupported handler classes', () => {
    const dir = writeTree({});
    const file = join(dir, 'daemon.log');
    const c = capture({
      version: 1,
      disable_existing_loggers: false,
      handlers: {
        f: { class: 'logging.FileHandler', filename: file, mode: 'w' },
        s: { class: 'logging.handlers.SysLogHandler' },
      },
      root: { level: 'INFO', handlers: ['f', 's'] },
    });
    getLogger('cronstable').info('to the file');
    expect(readFileSync(file, 'utf8')).toBe('to the file\n');
    expect(c.warnings.join()).toContain(
      "class 'logging.handlers.SysLogHandler', which cronstable does not support",
    );
  });

  it('refuses an unsupported version or a missing formatter with a clear error', () => {
    expect(() => buildLogRouter({ version: 2 }, () => {})).toThrow(
      'Error while configuring logging: Unsupported version: 2',
    );
    expect(() =>
      buildLogRouter(
        { version: 1, handlers: { h: { class: 'logging.StreamHandler', formatter: 'nope' } } },
        () => {},
      ),
    ).toThrow("unknown formatter 'nope'");
  });
});
