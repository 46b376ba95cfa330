// Validation that spec 09 §7 tightened: object schedule fields, control characters in crontab
// lines and `web.tls` against the listeners' schemes. Pure checks returning the message or null.
import { excerpt } from './errors.ts';
import type { ScheduleObject, WebSection } from './file-schema.ts';

const SCHEDULE_FIELDS = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'year', 'dayOfWeek'] as const;

/** §7.2: a blank field would drop its column and a space would add one, shifting the rest. */
export function scheduleFieldProblems(schedule: ScheduleObject): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const key of SCHEDULE_FIELDS) {
    const v = (schedule as Record<string, unknown>)[key];
    if (v === undefined || v === null) continue;
    const text = String(v);
    if (text !== '' && !/\s/u.test(text)) continue;
    out.push({
      key,
      message: `schedule.${key}: must be a single non-empty cron field with no whitespace, got '${excerpt(text)}' (a blank value would drop this column and an embedded space would add one, silently shifting every later field; omit the key entirely for its default)`,
    });
  }
  return out;
}

// C0 except TAB and LF, DEL, C1, and the two Unicode line/paragraph separators.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
// Python's str.strip() set (JavaScript's \s plus U+001C-U+001F and U+0085): these are trimmed,
// and so accepted, at either end of a line. U+FEFF stays stripped as trim() did, so no file that
// loaded before stops loading.
const EDGE = /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/gu;

export function crontabStrip(line: string): string {
  return line.replace(EDGE, '');
}

function pyRepr(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100
    ? `'\\x${code.toString(16).padStart(2, '0')}'`
    : `'\\u${code.toString(16).padStart(4, '0')}'`;
}

/** §7.3: the message for a crontab line (already stripped) holding a control character, else null. */
export function crontabControlProblem(line: string): string | null {
  const m = CONTROL.exec(line);
  if (!m) return null;
  return `control character ${pyRepr(m[0])} in a crontab line: it cannot be part of a schedule, command or environment value (a NUL is unspawnable, and the others read as line breaks in some tools but not others). Remove it, or move this job to a YAML config.`;
}

/** §7.4 and spec 10 §3.1: parse-time agreement of `web.tls` with the `https://` listen addresses. */
export function webTlsProblems(web: WebSection): string[] {
  const https = web.listen.filter((u) => u.startsWith('https://'));
  const tls = web.tls;
  const cert = Boolean(tls?.cert);
  const key = Boolean(tls?.key);
  const out: string[] = [];
  if (cert !== key)
    out.push(
      `web.tls.cert and web.tls.key must be set together (a server certificate needs its private key); got cert=${cert ? 'True' : 'False'}, key=${key ? 'True' : 'False'}`,
    );
  if (tls?.clientCa && !cert)
    out.push(
      'web.tls.clientCa is set but web.tls.cert and web.tls.key are not; a listener cannot require client certificates without serving one of its own',
    );
  if ((cert || key || tls?.ca || tls?.clientCa) && https.length === 0)
    out.push(
      'web.tls is configured but no web.listen address uses https:// , so the TLS material would be ignored and the API served in cleartext; use an https:// listen address or remove web.tls',
    );
  if (https.length > 0 && !cert)
    out.push(
      `web.listen has https:// address(es) ${https.join(', ')} but no web.tls.cert / web.tls.key, so those listeners have no certificate to serve and would be skipped at startup; set web.tls.cert and web.tls.key, or use http:// addresses`,
    );
  return out;
}
