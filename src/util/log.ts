// Minimal leveled logger with the reference's default format `LEVEL:logger:message` on stderr.
// The `logging:` section's formatters and handlers plug in through `setSink`.

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

export interface LogRecord {
  level: number;
  levelName: string;
  logger: string;
  message: string;
  timeMs: number;
}

export type LogSink = (record: LogRecord) => void;

export function parseLevel(name: string): number | undefined {
  return Object.hasOwn(LEVELS, name) ? LEVELS[name as LevelName] : undefined;
}

const stderrSink: LogSink = (r) => process.stderr.write(`${r.levelName}:${r.logger}:${r.message}\n`);

let threshold: number = LEVELS.INFO;
let sink: LogSink = stderrSink;

export function setLogLevel(level: number): void {
  threshold = level;
}
export function setSink(next: LogSink | null): void {
  sink = next ?? stderrSink;
}

export class Logger {
  constructor(readonly name: string) {}
  log(level: number, message: string): void {
    if (level < threshold) return;
    sink({
      level,
      levelName: CANONICAL[level] ?? `Level ${level}`,
      logger: this.name,
      message,
      timeMs: Date.now(),
    });
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
