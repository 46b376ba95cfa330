// Archived-output redaction goldens (spec 02 §13, widened by spec 09 §8.3).
import { describe, expect, it } from 'vitest';
import { REDACTED, redactLine, redactLines } from '../../src/exec/redact.ts';

const R = REDACTED;

function golden(cases: Array<[string, string]>): void {
  for (const [input, expected] of cases) expect(redactLine(input), input).toBe(expected);
}

describe('rule 1: key<sep>value', () => {
  it('redacts bare values to end of line, keeping key and separator', () => {
    golden([
      ['password=hunter2', `password=${R}`],
      ['Passwords: a b c   ', `Passwords: ${R}   `],
      ['tokens = xyz', `tokens = ${R}`],
      ['auth-token: zzz', `auth-token: ${R}`],
      ['credentials: user:pw', `credentials: ${R}`],
      ['passwd:x', `passwd:${R}`],
      ['PWD=/root', `PWD=${R}`],
      ['password=abc\n', `password=${R}\n`],
    ]);
  });

  // Spec 09 §8.3: the keyword matches anywhere in its token; the prefix text is kept.
  it('matches a keyword anywhere in a compound name, keeping the prefix', () => {
    golden([
      ['MY_PASSWORD=hunter2 more words', `MY_PASSWORD=${R}`],
      ['AWS_SECRET_ACCESS_KEY=abc/def+ghi', `AWS_SECRET_ACCESS_KEY=${R}`],
      ['export DB-SECRET_KEY=k', `export DB-SECRET_KEY=${R}`],
      ['APIKEY=1 api-key=2', `APIKEY=${R}`],
      ['mypassword=yes', `mypassword=${R}`],
      ['db2token=yes', `db2token=${R}`],
      ['MYSQLPWD=x', `MYSQLPWD=${R}`],
      ['OLDPWD=/home/me', `OLDPWD=${R}`],
      ['retokens: x', `retokens: ${R}`],
      ['password_file=/etc/x', 'password_file=/etc/x'],
      ['tokenizer=bert', 'tokenizer=bert'],
    ]);
  });

  it('spec 09 vector 39: archived lines', () => {
    golden([
      ['PGPASSWORD=hunter2 psql', `PGPASSWORD=${R}`],
      ['REDISCLI_AUTH=abc redis-cli', `REDISCLI_AUTH=${R}`],
      ['rediscli-auth: abc', `rediscli-auth: ${R}`],
      ['Authorization: Bearer abc+def/ghi~jkl==', `Authorization: Bearer ${R}`],
      ['Authorization: Basic dXNlcjpwYXNz-_x', `Authorization: Basic ${R}`],
      ['oauth: on', 'oauth: on'],
      ['auth=x', 'auth=x'],
    ]);
  });

  it('redacts quoted values up to the closing quote (escapes allowed), quotes included', () => {
    golden([
      ['{"password": "p\\"w", "user": "bob"}', `{"password": ${R}, "user": "bob"}`],
      ["{'api_key': 'k1', 'x': 1}", `{'api_key': ${R}, 'x': 1}`],
      ['private_key = "-----x" tail', `private_key = ${R} tail`],
      ['"access_key":"AK" ,', `"access_key":${R} ,`],
    ]);
  });

  it('stops a bare value at , } or ] directly following it', () => {
    golden([
      ['token: abc, next=1', `token: ${R}, next=1`],
      ['config {secret=abc} done', `config {secret=${R}} done`],
      ['list [pwd=abc] done', `list [pwd=${R}] done`],
      // Not directly followed: the value runs to end of line (bias to over-redaction).
      ['token: abc def, next', `token: ${R}`],
    ]);
  });

  it('leaves an empty value alone', () => {
    golden([
      ['password=', 'password='],
      ['password:\n', 'password:\n'],
    ]);
  });
});

describe('rule 2: URL userinfo password', () => {
  it('keeps scheme, user, colon and @', () => {
    golden([
      ['connect postgres://admin:s3cr3t@db:5432/app ok', `connect postgres://admin:${R}@db:5432/app ok`],
      ['https://:onlypass@host/', `https://:${R}@host/`],
      ['redis://user:p@ss@host', `redis://user:${R}@host`],
      ['https://user@host/path', 'https://user@host/path'],
      ['see http://host:8080/x', 'see http://host:8080/x'],
    ]);
  });

  it('starts the scheme where no scheme character precedes it, at most 32 long', () => {
    const long = `a${'b'.repeat(40)}`;
    golden([
      [`x ${'s'.repeat(32)}://u:pw@h`, `x ${'s'.repeat(32)}://u:${R}@h`],
      // Longer than 32: no scheme starts after a scheme character, so nothing is redacted.
      [`${long}://u:pw@h`, `${long}://u:pw@h`],
    ]);
    // The guard keeps a hostile line linear (a timing test would be a benchmark; this one only
    // checks that a long run of scheme characters does not change the outcome).
    const hostile = `${'a'.repeat(20_000)}:`;
    expect(redactLine(hostile)).toBe(hostile);
  });
});

describe('rule 3: Bearer tokens', () => {
  it('redacts tokens of 8+ characters, case-insensitively', () => {
    golden([
      ['Authorization: Bearer abcdefgh.ijk-lmn_opq', `Authorization: Bearer ${R}`],
      ['curl -H "bearer 0123456789"', `curl -H "bearer ${R}"`],
      ['bearer short', 'bearer short'],
      ['Bearer abc~def+ghi/jkl== tail', `Bearer ${R} tail`],
    ]);
  });
});

describe('rule 4: Basic auth', () => {
  it('redacts the base64 credentials after Authorization', () => {
    golden([
      ['Authorization: Basic dXNlcjpwYXNzd29yZA==', `Authorization: Basic ${R}`],
      ['Authorization Basic dXNlcjpwYXNzd29yZA==', `Authorization Basic ${R}`],
      ['authorization:basic dXNlcjpw', `authorization:basic ${R}`],
      ['Authorization: Basic abc', 'Authorization: Basic abc'],
      ['Authorization: Basic dXNl-cjpw_YXNz.x~', `Authorization: Basic ${R}`],
    ]);
  });
});

describe('rule 5: well-known token shapes', () => {
  it('replaces the whole token', () => {
    golden([
      ['key AKIAIOSFODNN7EXAMPLE here', `key ${R} here`],
      ['slack xoxb-1234567890-abcdef', `slack ${R}`],
      ['gh ghp_abcdefghijklmnopqrstuvwxyz0123 done', `gh ${R} done`],
      ['ghs_ABCDEFGHIJKLMNOPQRST1', R],
      ['github_pat_11ABCDEFG0123456789_abcdefghij', R],
      ['openai sk-abcdefghijklmnop1234 x', `openai ${R} x`],
      ['stripe sk_live_abcdefghijklmnop12 rk_test_ABCDEFGHIJKLMNOP99', `stripe ${R} ${R}`],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl end', `jwt ${R} end`],
    ]);
  });

  it('does not fire inside other words or on short look-alikes', () => {
    golden([
      ['task-abcdefghijklmnopqrstu', 'task-abcdefghijklmnopqrstu'],
      ['AKIA123', 'AKIA123'],
      ['ghp_short', 'ghp_short'],
      ['sk-short', 'sk-short'],
      ['eyJhbGci.x.y', 'eyJhbGci.x.y'],
      ['nothing to see here', 'nothing to see here'],
    ]);
  });
});

describe('rule 6 and multi-line PEM blocks', () => {
  it('redacts a PEM header and the rest of its line', () => {
    golden([['x -----BEGIN RSA PRIVATE KEY----- MIIE', `x ${R}`]]);
  });

  it('replaces every line from BEGIN through END, keeping line terminators', () => {
    const r = redactLines([
      'a\n',
      '-----BEGIN PRIVATE KEY-----\n',
      'MIIabc\n',
      '-----END PRIVATE KEY-----\n',
      'b\n',
    ]);
    expect(r).toEqual({ lines: ['a\n', `${R}\n`, `${R}\n`, `${R}\n`, 'b\n'], redacted: true });
  });

  it('redacts from the start through a leading END (header evicted), and an unterminated block to the end', () => {
    const r = redactLines([
      'MIIabc',
      '-----END EC PRIVATE KEY-----',
      'after',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'x',
    ]);
    expect(r.lines).toEqual([R, R, 'after', R, R]);
  });

  it('processes markers in position order within a line', () => {
    expect(
      redactLines(['k: -----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY----- tail', 'next']).lines,
    ).toEqual([R, 'next']);
    expect(
      redactLines([
        '-----END PRIVATE KEY----- -----BEGIN PRIVATE KEY-----',
        'x',
        '-----END PRIVATE KEY-----',
        'y',
      ]).lines,
    ).toEqual([R, R, R, 'y']);
  });

  it('a stray END after a complete block does not redact backwards', () => {
    expect(
      redactLines([
        'ok',
        '-----BEGIN PRIVATE KEY-----',
        'k',
        '-----END PRIVATE KEY-----',
        'mid',
        '-----END PRIVATE KEY-----',
      ]).lines,
    ).toEqual(['ok', R, R, R, 'mid', '-----END PRIVATE KEY-----']);
  });

  it('certificates are not secrets', () => {
    const lines = ['-----BEGIN CERTIFICATE-----', 'MIIcert', '-----END CERTIFICATE-----'];
    expect(redactLines(lines)).toEqual({ lines, redacted: false });
  });
});

describe('redactLines', () => {
  it('reports redacted=false and returns equal lines when nothing matched', () => {
    expect(redactLines(['hello\n', 'world'])).toEqual({ lines: ['hello\n', 'world'], redacted: false });
    expect(redactLines([])).toEqual({ lines: [], redacted: false });
  });

  it('scrubs literal extra secrets (longest first; empty ignored)', () => {
    expect(
      redactLines(['value is s3cr3t-value!', 'prefix s3cr3t', 'ok'], ['s3cr3t', 's3cr3t-value!', '']),
    ).toEqual({
      lines: [`value is ${R}`, `prefix ${R}`, 'ok'],
      redacted: true,
    });
  });

  it('scrubs the longer lines of a multi-line secret', () => {
    const secret = 'line-one-secret\nline-two-secret\nab';
    expect(redactLines(['x line-two-secret y', 'ab'], [secret]).lines).toEqual([`x ${R} y`, 'ab']);
  });

  it('does not mutate its input', () => {
    const input = ['password=x'];
    redactLines(input);
    expect(input).toEqual(['password=x']);
  });
});
