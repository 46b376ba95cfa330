// Best-effort secret redaction of archived output lines (spec 02 §13, as widened by spec 09 §8.3).
// Pure.

export const REDACTED = '***REDACTED***';

// `auth` alone is no keyword: `oauth: on` is configuration, not a credential.
const KEY =
  '(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|auth[_-]?token|credential|private[_-]?key|rediscli[_-]?auth)';

// Rule 1: `key<sep>value`. The keyword may sit anywhere in its token (`PGPASSWORD`, `MYSQLPWD`,
// `OLDPWD`, `retokens`: the prefix is kept, the value goes), may end in `s` and be quoted; the
// separator is `=` or `:`.
// Value: a quoted string (escapes allowed), a bare token directly followed by `,` `}` `]`, or
// anything else up to the end of the line (trailing blanks kept).
const KEY_VALUE = new RegExp(
  `(${KEY}s?["']?[ \\t]*[=:][ \\t]*)` +
    `(?:"(?:[^"\\\\\\r\\n]|\\\\.)*"|'(?:[^'\\\\\\r\\n]|\\\\.)*'|[^\\s,}\\]]+(?=[,}\\]])|[^\\r\\n]*[^\\s])`,
  'gi',
);

// Rule 2: the password of URL userinfo, `scheme://[user]:PASSWORD@`. The scheme starts where no
// scheme character precedes it and is at most 32 long, so a long run of them cannot make the
// scan backtrack over the whole line.
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]*:)[^\s/]+(?=@)/gi;

// Rule 3: `Bearer <token>`: the RFC 6750 token characters, then any `=` padding.
const BEARER = /\b(Bearer[ \t]+)[A-Za-z0-9._~+/-]{8,}=*/gi;

// Rule 4: `Authorization: Basic <credentials>` (colon or just blanks after the header name),
// base64 and base64url alike.
const BASIC_AUTH = /\b(Authorization(?:[ \t]*:[ \t]*|[ \t]+)Basic[ \t]+)[A-Za-z0-9._~+/=-]{8,}/gi;

// Rule 5: well-known token shapes, replaced whole.
const TOKENS: RegExp[] = [
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[baprs]-[A-Za-z0-9-]{8,}/g,
  /\bgh[posur]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{3,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g,
];

// Rule 6 and the multi-line block markers.
const PEM_BEGIN_LINE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[^\r\n]*/g;
const PEM_MARKER = /-----(BEGIN|END) [A-Z0-9 ]*PRIVATE KEY-----/g;

/** Applies rules 1-6 to one line (the multi-line PEM state is handled by `redactLines`). */
export function redactLine(line: string, extraSecrets: readonly string[] = []): string {
  return redactWith(line, literalSecrets(extraSecrets));
}

function redactWith(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  out = out.replace(KEY_VALUE, `$1${REDACTED}`);
  out = out.replace(URL_PASSWORD, `$1${REDACTED}`);
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(BASIC_AUTH, `$1${REDACTED}`);
  for (const re of TOKENS) out = out.replace(re, REDACTED);
  out = out.replace(PEM_BEGIN_LINE, REDACTED);
  return out;
}

/**
 * Redacts a batch of archived lines. Lines may carry their own line terminator, which is kept.
 * Every line from a private-key BEGIN through its END (inclusive) becomes `***REDACTED***`; an
 * unterminated block runs to the end; a batch whose first marker is an END (the header was
 * evicted) is redacted from its start through that END. `extraSecrets` are literal values
 * (e.g. the job's secrets) scrubbed wherever they appear.
 */
export function redactLines(
  lines: string[],
  extraSecrets: readonly string[] = [],
): { lines: string[]; redacted: boolean } {
  const secrets = literalSecrets(extraSecrets);
  const out = lines.map((line) => redactWith(line, secrets));
  let inBlock = false;
  let seenMarker = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let whole = inBlock;
    for (const marker of line.matchAll(PEM_MARKER)) {
      if (marker[1] === 'BEGIN') {
        inBlock = true;
        whole = true;
      } else if (inBlock) {
        inBlock = false;
        whole = true;
      } else if (!seenMarker) {
        for (let j = 0; j < i; j++) out[j] = REDACTED + terminator(lines[j]!);
        whole = true;
      }
      seenMarker = true;
    }
    if (whole) out[i] = REDACTED + terminator(line);
  }
  return { lines: out, redacted: out.some((line, i) => line !== lines[i]) };
}

function terminator(line: string): string {
  const m = /\r?\n$/.exec(line);
  return m ? m[0] : '';
}

/** Non-empty literal secrets, longest first; a multi-line value also contributes its longer lines. */
function literalSecrets(secrets: readonly string[]): string[] {
  const set = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    set.add(secret);
    if (/[\r\n]/.test(secret)) {
      for (const part of secret.split(/\r?\n|\r/)) {
        const trimmed = part.trim();
        if (trimmed.length >= 8) set.add(trimmed);
      }
    }
  }
  return [...set].sort((a, b) => b.length - a.length);
}
