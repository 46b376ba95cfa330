// Pure parts of exec: prefix, failsWhen, environment, argv, exit codes, the per-stream pipeline.
import { describe, expect, it } from 'vitest';
import type { FailsWhen } from '../../src/config/types.ts';
import { commandArgv } from '../../src/exec/argv.ts';
import { StreamCapture } from '../../src/exec/capture.ts';
import { buildEnvironment } from '../../src/exec/env.ts';
import { exitCodeOf } from '../../src/exec/exitcode.ts';
import { failReason } from '../../src/exec/failswhen.ts';
import { formatStreamPrefix, streamPrefixProblem } from '../../src/exec/prefix.ts';

describe('formatStreamPrefix', () => {
  it('renders the default prefix', () => {
    expect(formatStreamPrefix('[{job_name} {stream_name}] ', 'orders-ingest', 'stderr')).toBe(
      '[orders-ingest stderr] ',
    );
  });

  it('renders the seed custom prefix and the empty prefix', () => {
    expect(formatStreamPrefix('[meridian:{job_name}/{stream_name}] ', 'orders-ingest', 'stdout')).toBe(
      '[meridian:orders-ingest/stdout] ',
    );
    expect(formatStreamPrefix('', 'x', 'stdout')).toBe('');
  });

  it('un-doubles braces like str.format and substitutes repeated placeholders', () => {
    expect(formatStreamPrefix('{{{job_name}}} {{x}} {stream_name}/{stream_name}', 'j', 'stdout')).toBe(
      '{j} {x} stdout/stdout',
    );
  });

  it('does not re-interpret braces that come from the job name', () => {
    expect(formatStreamPrefix('<{job_name}>', 'a{stream_name}b', 'stderr')).toBe('<a{stream_name}b>');
  });

  it('leaves an unknown placeholder as written (config validation rejects it)', () => {
    expect(formatStreamPrefix('{host} {job_name}', 'j', 'stdout')).toBe('{host} j');
  });
});

describe('streamPrefixProblem', () => {
  it('accepts the two placeholders and doubled braces', () => {
    expect(streamPrefixProblem('[{job_name} {stream_name}] ')).toBeNull();
    expect(streamPrefixProblem('{{literal}} {job_name}')).toBeNull();
    expect(streamPrefixProblem('')).toBeNull();
  });

  it('rejects other placeholders and unbalanced braces', () => {
    expect(streamPrefixProblem('{host}')).toBe(
      "unknown placeholder '{host}' (only {job_name} and {stream_name})",
    );
    expect(streamPrefixProblem('{job_name')).toBe("unclosed '{' at offset 0");
    expect(streamPrefixProblem('a}')).toBe("single '}' at offset 1");
    expect(streamPrefixProblem('{}')).toBe("unknown placeholder '{}' (only {job_name} and {stream_name})");
  });
});

const FW: FailsWhen = { producesStdout: false, producesStderr: true, nonzeroReturn: true, always: false };
const facts = (over: Partial<Parameters<typeof failReason>[1]> = {}) => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  stdoutDiscarded: 0,
  stderrDiscarded: 0,
  ...over,
});

describe('failReason', () => {
  it('success when nothing matches', () => {
    expect(failReason(FW, facts())).toBeNull();
  });

  it('always wins over everything', () => {
    expect(failReason({ ...FW, always: true }, facts({ exitCode: 3, stderr: 'x' }))).toBe('failsWhen=always');
  });

  it('nonzeroReturn comes before the output checks and prints the code', () => {
    expect(failReason(FW, facts({ exitCode: 69, stderr: 'boom\n' }))).toBe(
      'failsWhen=nonzeroReturn and retcode=69',
    );
    expect(failReason(FW, facts({ exitCode: -100 }))).toBe('failsWhen=nonzeroReturn and retcode=-100');
    expect(failReason(FW, facts({ exitCode: -15 }))).toBe('failsWhen=nonzeroReturn and retcode=-15');
    expect(failReason(FW, facts({ exitCode: 127 }))).toBe('failsWhen=nonzeroReturn and retcode=127');
  });

  it('producesStdout before producesStderr', () => {
    const fw = { ...FW, producesStdout: true };
    expect(failReason(fw, facts({ stdout: 'o\n', stderr: 'e\n' }))).toBe(
      'failsWhen=producesStdout and stdout is not empty',
    );
    expect(failReason(fw, facts({ stderr: 'e\n' }))).toBe('failsWhen=producesStderr and stderr is not empty');
  });

  it('discarded lines count as output even when nothing was retained (saveLimit 0)', () => {
    expect(failReason(FW, facts({ stderr: '', stderrDiscarded: 3 }))).toBe(
      'failsWhen=producesStderr and stderr is not empty',
    );
  });

  it('an uncaptured stream never trips the output checks', () => {
    const fw = { ...FW, producesStdout: true };
    expect(failReason(fw, facts({ stdout: null, stderr: null }))).toBeNull();
  });

  it('launch failure with nonzeroReturn false counts as success', () => {
    expect(
      failReason({ ...FW, nonzeroReturn: false }, facts({ exitCode: 127, stdout: null, stderr: null })),
    ).toBe(null);
  });
});

describe('buildEnvironment', () => {
  const base = { PATH: '/usr/bin', HOME: '/root', HOSTNAME: 'h1', GONE: undefined };

  it('inherits (null) when nothing custom is needed', () => {
    expect(buildEnvironment([], false, base, undefined)).toBeNull();
    expect(buildEnvironment([], false, base, {})).toBeNull();
  });

  it('builds daemon < environment < injected', () => {
    const env = buildEnvironment(
      [
        { key: 'HOME', value: '/home/job' },
        { key: 'CRONSTABLE_JOB_NAME', value: 'spoofed' },
        { key: 'REGION', value: 'eu' },
      ],
      false,
      base,
      { CRONSTABLE_JOB_NAME: 'real' },
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/job',
      HOSTNAME: 'h1',
      CRONSTABLE_JOB_NAME: 'real',
      REGION: 'eu',
    });
  });

  it('a set env_file forces a custom environment even if it added nothing', () => {
    expect(buildEnvironment([], true, base, undefined)).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'h1',
    });
  });

  it('injected variables alone force a custom environment', () => {
    expect(buildEnvironment([], false, { A: '1' }, { CRONSTABLE_ATTEMPT: '0' })).toEqual({
      A: '1',
      CRONSTABLE_ATTEMPT: '0',
    });
  });

  it('treats __proto__ as an ordinary variable', () => {
    const env = buildEnvironment([{ key: '__proto__', value: 'x' }], false, {}, undefined)!;
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.keys(env)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(env, '__proto__')?.value).toBe('x');
  });
});

describe('commandArgv', () => {
  it('runs a list verbatim with no shell', () => {
    expect(commandArgv(['python3', '-c', 'print("$HOME *")'], '/bin/bash')).toEqual({
      file: 'python3',
      args: ['-c', 'print("$HOME *")'],
    });
  });

  it('runs a string through the shell, path not split', () => {
    expect(commandArgv('echo hi', '/bin/bash -e')).toEqual({ file: '/bin/bash -e', args: ['-c', 'echo hi'] });
    expect(commandArgv('echo hi', '/bin/sh')).toEqual({ file: '/bin/sh', args: ['-c', 'echo hi'] });
  });

  it('uses /bin/sh for an empty shell', () => {
    expect(commandArgv('echo hi', '')).toEqual({ file: '/bin/sh', args: ['-c', 'echo hi'] });
  });
});

describe('exitCodeOf', () => {
  it('maps statuses and signals', () => {
    expect(exitCodeOf(0, null)).toBe(0);
    expect(exitCodeOf(69, null)).toBe(69);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(-15);
    expect(exitCodeOf(null, 'SIGKILL')).toBe(-9);
    expect(exitCodeOf(null, 'SIGINT')).toBe(-2);
  });
});

describe('StreamCapture', () => {
  function make(over: { saveLimit?: number; maxLineLength?: number; streamPrefix?: string } = {}) {
    const published: string[] = [];
    const emitted: string[] = [];
    const warnings: string[] = [];
    const capture = new StreamCapture(
      {
        jobName: 'log-rotate',
        stream: 'stderr',
        streamPrefix: over.streamPrefix ?? '[{job_name} {stream_name}] ',
        saveLimit: over.saveLimit ?? 4096,
        maxLineLength: over.maxLineLength ?? 80,
      },
      {
        publish: (s, line) => published.push(`${s}:${line}`),
        emit: (t) => emitted.push(t),
        warn: (m) => warnings.push(m),
      },
    );
    return { capture, published, emitted, warnings };
  }

  it('publishes, re-emits prefixed and retains unprefixed; drops over-long lines with a warning', () => {
    const { capture, published, emitted, warnings } = make({ maxLineLength: 80 });
    capture.feed(Buffer.from(`short\n${'x'.repeat(81)}\nlast`));
    capture.finish();
    expect(published).toEqual(['stderr:short\n', 'stderr:last']);
    expect(emitted).toEqual(['[log-rotate stderr] short\n', '[log-rotate stderr] last']);
    expect(warnings).toEqual(['job log-rotate: ignored a very long line']);
    expect(capture.text).toBe('short\nlast');
    expect(capture.discarded).toBe(0);
  });

  it('a stream of only over-long lines retains "" with nothing discarded', () => {
    const { capture } = make({ maxLineLength: 4 });
    capture.feed(Buffer.from('123456\nabcdefg'));
    capture.finish();
    expect(capture.text).toBe('');
    expect(capture.discarded).toBe(0);
  });

  it('finish is idempotent and later data is ignored', () => {
    const { capture, published } = make();
    capture.feed(Buffer.from('a'));
    capture.finish();
    capture.finish();
    capture.feed(Buffer.from('b\n'));
    expect(published).toEqual(['stderr:a']);
  });
});
