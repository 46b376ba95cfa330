// Applies a `logging:` section (spec 01 §1.9): the subset of Python's dictConfig that a
// TypeScript daemon can honour — %-style formatters, stream and file handlers, root and
// per-logger levels, and disable_existing_loggers.
import { appendFileSync, writeFileSync } from 'node:fs';
import { hostZoneAbbreviation } from '../schedule/zone.ts';
import { errorText } from '../util/errors.ts';
import { type LogRecord, parseLevel, setRouter } from '../util/log.ts';
import type { LoggingSection } from './file-schema.ts';
import type { Plain } from './validators.ts';

/** Loggers the daemon creates; dictConfig disables them unless they are configured. */
export const DAEMON_LOGGERS = ['cronstable', 'cronstable.config', 'statsd', 'prometheus'];

type Dict = Record<string, Plain>;
const asDict = (v: Plain | undefined): Dict => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const asList = (v: Plain | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);
const asText = (v: Plain | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

const pad2 = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The local zone's abbreviation ('CET', 'EST'): from the host's zone file when it has one (no ICU). */
function zoneAbbreviation(d: Date): string {
  return (
    hostZoneAbbreviation(d.getTime()) ??
    Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
      .formatToParts(d)
      .find((p) => p.type === 'timeZoneName')?.value ??
    ''
  );
}

/** strftime subset (%Y %m %d %H %M %S %z %Z %b %a %j %%) in local time. */
export function strftime(format: string, ms: number): string {
  const d = new Date(ms);
  const off = -d.getTimezoneOffset();
  const zone = `${off >= 0 ? '+' : '-'}${pad2(Math.floor(Math.abs(off) / 60))}${pad2(Math.abs(off) % 60)}`;
  const startOfYear = new Date(d.getFullYear(), 0, 1).getTime();
  const yday = Math.floor((ms - startOfYear) / 86_400_000) + 1;
  const codes: Record<string, string> = {
    Y: String(d.getFullYear()),
    m: pad2(d.getMonth() + 1),
    d: pad2(d.getDate()),
    H: pad2(d.getHours()),
    M: pad2(d.getMinutes()),
    S: pad2(d.getSeconds()),
    z: zone,
    Z: format.includes('%Z') ? zoneAbbreviation(d) : '',
    b: MONTHS[d.getMonth()]!,
    a: DAYS[d.getDay()]!,
    j: String(yday).padStart(3, '0'),
    '%': '%',
  };
  return format.replace(/%([YmdHMSzZbaj%])/g, (_, c: string) => codes[c]!);
}

function defaultAsctime(ms: number): string {
  return `${strftime('%Y-%m-%d %H:%M:%S', ms)},${String(new Date(ms).getMilliseconds()).padStart(3, '0')}`;
}

/** Python %-style record formatting, with width/alignment flags such as %(levelname)-8s. */
export function formatRecord(format: string, datefmt: string | undefined, r: LogRecord): string {
  const fields: Record<string, string | number> = {
    asctime: datefmt ? strftime(datefmt, r.timeMs) : defaultAsctime(r.timeMs),
    levelname: r.levelName,
    levelno: r.level,
    name: r.logger,
    message: r.message,
    process: process.pid,
    processName: 'MainProcess',
    threadName: 'MainThread',
    module: r.logger.split('.').pop() ?? r.logger,
    funcName: '<module>',
    lineno: 0,
  };
  return format.replace(
    /%\((\w+)\)(-?)(\d*)([sdfr])|%%/g,
    (whole, key: string, left: string, width: string) => {
      if (whole === '%%') return '%';
      const value = key in fields ? String(fields[key]) : whole;
      const w = Number(width || 0);
      return left ? value.padEnd(w) : value.padStart(w);
    },
  );
}

interface Handler {
  level: number;
  emit(r: LogRecord): void;
}

interface LoggerConf {
  level?: number;
  handlers: Handler[];
  propagate: boolean;
  disabled: boolean;
}

/** Builds the router for a section; throws with a readable message when it cannot be applied. */
export function buildLogRouter(
  section: LoggingSection,
  warn: (message: string) => void,
  streams: { stdout: (t: string) => void; stderr: (t: string) => void } = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  },
): (r: LogRecord) => void {
  if (section.version !== 1)
    throw new Error(`Error while configuring logging: Unsupported version: ${section.version}`);
  const formatters = new Map<string, (r: LogRecord) => string>();
  for (const [name, spec] of Object.entries(asDict(section.formatters))) {
    const f = asDict(spec);
    const format = asText(f.format) ?? '%(message)s';
    const datefmt = asText(f.datefmt);
    formatters.set(name, (r) => formatRecord(format, datefmt, r));
  }
  const plain = (r: LogRecord) => r.message;
  const handlers = new Map<string, Handler>();
  for (const [name, spec] of Object.entries(asDict(section.handlers))) {
    const h = asDict(spec);
    const cls = asText(h.class) ?? '';
    const level = parseLevel(asText(h.level) ?? 'NOTSET');
    if (level === undefined)
      throw new Error(
        `Error while configuring logging: handler '${name}': unknown level '${asText(h.level)}'`,
      );
    const fmtName = asText(h.formatter);
    if (fmtName && !formatters.has(fmtName))
      throw new Error(`Error while configuring logging: handler '${name}': unknown formatter '${fmtName}'`);
    const format = fmtName ? formatters.get(fmtName)! : plain;
    let write: (text: string) => void;
    if (cls === 'logging.StreamHandler') {
      const stream = asText(h.stream) ?? 'ext://sys.stderr';
      write = stream === 'ext://sys.stdout' ? streams.stdout : streams.stderr;
    } else if (cls === 'logging.FileHandler') {
      const filename = asText(h.filename);
      if (!filename) throw new Error(`Error while configuring logging: handler '${name}' needs a filename`);
      if ((asText(h.mode) ?? 'a') === 'w') writeFileSync(filename, '');
      write = (text) => appendFileSync(filename, text);
    } else {
      warn(`logging: handler '${name}' has class '${cls}', which cronstable does not support; it is ignored`);
      continue;
    }
    handlers.set(name, { level, emit: (r) => write(`${format(r)}\n`) });
  }
  const pickHandlers = (names: string[], owner: string) =>
    names.flatMap((n) => {
      const h = handlers.get(n);
      if (!h) warn(`logging: ${owner} refers to unknown handler '${n}'; ignored`);
      return h ? [h] : [];
    });
  const rootSpec = asDict(section.root);
  const rootLevel = parseLevel(asText(rootSpec.level) ?? 'WARNING') ?? 30;
  const root: LoggerConf = {
    level: rootLevel,
    handlers: pickHandlers(asList(rootSpec.handlers), 'root'),
    propagate: false,
    disabled: false,
  };
  const loggers = new Map<string, LoggerConf>();
  for (const [name, spec] of Object.entries(asDict(section.loggers))) {
    const l = asDict(spec);
    const level = asText(l.level);
    loggers.set(name, {
      level: level === undefined ? undefined : parseLevel(level),
      handlers: pickHandlers(asList(l.handlers), `logger '${name}'`),
      propagate:
        asText(l.propagate) === undefined
          ? true
          : ['true', 'yes', 'on', '1', 'y'].includes(asText(l.propagate)!.toLowerCase()),
      disabled: false,
    });
  }
  const disableExisting = section.disable_existing_loggers ?? true;
  const disabled = new Set<string>();
  if (disableExisting) {
    for (const name of DAEMON_LOGGERS) {
      const parts = name.split('.');
      const configured = parts.some((_, i) => loggers.has(parts.slice(0, i + 1).join('.')));
      if (!configured) disabled.add(name);
    }
  }
  const chain = (name: string): LoggerConf[] => {
    const parts = name.split('.');
    const out: LoggerConf[] = [];
    for (let i = parts.length; i > 0; i--) {
      const conf = loggers.get(parts.slice(0, i).join('.'));
      if (conf) out.push(conf);
    }
    return out;
  };
  return (r) => {
    if (disabled.has(r.logger)) return;
    const confs = chain(r.logger);
    const effective = confs.find((c) => c.level !== undefined && c.level !== 0)?.level ?? root.level ?? 30;
    if (r.level < effective) return;
    for (const c of confs) {
      for (const h of c.handlers) if (r.level >= h.level) h.emit(r);
      if (!c.propagate) return;
    }
    for (const h of root.handlers) if (r.level >= h.level) h.emit(r);
  };
}

/** Installs a section's router; on error logs it and keeps the previous setup. */
export function applyLoggingSection(
  section: LoggingSection | null,
  warn: (message: string) => void,
): string | null {
  if (!section) {
    setRouter(null);
    return null;
  }
  try {
    setRouter(buildLogRouter(section, warn));
    return null;
  } catch (e) {
    return errorText(e);
  }
}
