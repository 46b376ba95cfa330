// Leveled logging with the reference's default format `LEVEL:logger:message` on stderr.
// A `logging:` section (spec 01 §1.9) replaces the router through `setRouter`.

export const LEVELS = {
  CRITICAL: 50,
  FATAL: 50,
  ERROR: 40,
  WARNING: 30,
  WARN: 30,
  INFO: 20,
  DEBUG: 10,
  NOTSET: 0,
} as const;
export type LevelName = keyof typeof LEVELS;

const CANONICAL: Record<number, string> = {
  50: 'CRITICAL',
  40: 'ERROR',
  30: 'WARNING',
  20: 'INFO',
  10: 'DEBUG',
  0: 'NOTSET',
};

export function levelName(level: number): string {
  return CANONICAL[level] ?? `Level ${level}`;
}

export interface LogRecord {
  level: number;
  levelName: string;
  logger: string;
  message: string;
  timeMs: number;
}

export type LogSink = (record: LogRecord) => void;

/** Level names as Python accepts them (upper case), or a number. */
export function parseLevel(name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  return Object.hasOwn(LEVELS, name) ? LEVELS[name as LevelName] : undefined;
}

const stderrSink: LogSink = (r) => process.stderr.write(`${r.levelName}:${r.logger}:${r.message}\n`);

let threshold: number = LEVELS.INFO;
let sink: LogSink = stderrSink;
/** When set (a `logging:` section is applied), every record goes through it instead. */
let router: ((record: LogRecord) => void) | null = null;

export function setLogLevel(level: number): void {
  threshold = level;
}
export function getLogLevel(): number {
  return threshold;
}
/** Replaces the default stderr output (tests capture records this way). */
export function setSink(next: LogSink | null): void {
  sink = next ?? stderrSink;
}
export function setRouter(next: ((record: LogRecord) => void) | null): void {
  router = next;
}

export class Logger {
  constructor(readonly name: string) {}
  log(level: number, message: string): void {
    const record = { level, levelName: levelName(level), logger: this.name, message, timeMs: Date.now() };
    if (router) {
      router(record);
      return;
    }
    if (level >= threshold) sink(record);
  }
  debug(m: string): void {
    this.log(LEVELS.DEBUG, m);
  }
  info(m: string): void {
    this.log(LEVELS.INFO, m);
  }
  warning(m: string): void {
    this.log(LEVELS.WARNING, m);
  }
  error(m: string): void {
    this.log(LEVELS.ERROR, m);
  }
}

export function getLogger(name: string): Logger {
  return new Logger(name);
}
