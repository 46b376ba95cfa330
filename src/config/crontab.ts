// Classic crontab files lowered to job maps (spec 01 §4).
import { basename } from 'node:path';
import { isKnownTimezone, parseCron } from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import { type ConfigIssue, excerpt, quote, type SourcePos } from './errors.ts';
import type { RawJob } from './file-schema.ts';
import { crontabControlProblem, crontabStrip } from './tighten.ts';
import { setLocation } from './validators.ts';

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const NICKNAMES = [
  '@reboot',
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
];

function unquote(v: string): string {
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  return v;
}

/** `\%` becomes `%`; any other `%` is an error (cron's stdin feature is refused). */
function unescapeCommand(command: string): string | null {
  let out = '';
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === '\\' && command[i + 1] === '%') {
      out += '%';
      i++;
    } else if (c === '%') return null;
    else out += c;
  }
  return out;
}

export function lowerCrontab(text: string, path: string): { jobs: RawJob[]; issues: ConfigIssue[] } {
  const jobs: RawJob[] = [];
  const issues: ConfigIssue[] = [];
  const vars = new Map<string, string>();
  const base = basename(path);
  text.split('\n').forEach((rawLine, i) => {
    const lineNo = i + 1;
    const pos: SourcePos = { file: path, line: lineNo, col: 1 };
    const problem = (message: string) => issues.push({ file: path, line: lineNo, col: 1, message });
    const line = crontabStrip(rawLine);
    if (line === '' || line.startsWith('#')) return;
    const control = crontabControlProblem(line);
    if (control) {
      problem(control);
      return;
    }
    const assign = ASSIGNMENT.exec(line);
    if (assign) {
      const value = unquote(assign[2]!.trim());
      if (assign[1] === 'CRON_TZ' && value !== '' && !isKnownTimezone(value)) {
        problem(`CRON_TZ: unknown timezone ${quote(value)}`);
        return;
      }
      vars.set(assign[1]!, value);
      return;
    }
    let schedule: string;
    let command: string;
    if (line.startsWith('@')) {
      const m = /^(\S+)\s*(.*)$/.exec(line)!;
      const nick = m[1]!;
      if (!NICKNAMES.includes(nick)) {
        problem(`unknown schedule nickname ${quote(nick)}; supported: ${NICKNAMES.join(', ')}`);
        return;
      }
      schedule = nick === '@midnight' ? '@daily' : nick;
      command = m[2]!;
    } else {
      const parts = line.split(/\s+/);
      if (parts.length < 6) {
        problem(`not a valid crontab line: ${excerpt(line)}`);
        return;
      }
      schedule = parts.slice(0, 5).join(' ');
      command = line.replace(/^(\S+\s+){5}/, '');
      try {
        parseCron(schedule, { hashKey: `${base}:${lineNo}` });
      } catch (e) {
        problem(`invalid schedule ${quote(schedule)}: ${errorText(e)}`);
        return;
      }
    }
    if (command.trim() === '') {
      problem(`schedule ${quote(schedule)} has no command`);
      return;
    }
    const unescaped = unescapeCommand(command);
    if (unescaped === null) {
      problem(`unescaped '%' in command: ${excerpt(command)}`);
      return;
    }
    const job: RawJob = { name: `${base}:${lineNo}`, command: unescaped, schedule };
    if (vars.size > 0) {
      job.environment = [...vars].map(([key, value]) => ({ key, value }));
      const shell = vars.get('SHELL');
      if (shell) job.shell = shell;
      const tz = vars.get('CRON_TZ');
      if (tz) job.timezone = tz;
    }
    setLocation(job, { pos, keys: {}, path: `line ${lineNo}` });
    jobs.push(job);
  });
  return { jobs, issues };
}
