// The job CLI (spec 03 §7, spec 04 §6.2): `cronstable state|cursor|idempotent|lock|artifact|
// secret|xcom ...` inside a job, talking to the daemon's loopback job API.
// Exit codes: 0 ok, 1 error, 2 usage, 3 lock not acquired, 4 not found, 5 duplicate claim.
import { readFile, writeFile } from 'node:fs/promises';
import { describeFailure, JobApiClient, type JobApiResponse, NotInJobError } from '../jobapi/client.ts';
import { formatValue, parseCursorValue } from '../jobapi/pyvalue.ts';
import { compareCodePoints, scanLexemes } from '../jobapi/values.ts';
import { errorText } from '../util/errors.ts';
import { helpText, type OptionValue, parseCommand, usageLine } from './job-args.ts';
import { JOB_COMMANDS, JOB_VERBS, type JobVerb, verbHelp } from './job-specs.ts';

export type { JobVerb } from './job-specs.ts';
export { JOB_VERBS } from './job-specs.ts';

export interface JobVerbIo {
  out: (s: string | Uint8Array) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
  stdin: () => Promise<Uint8Array>;
}

export const EXIT = { ok: 0, error: 1, usage: 2, notAcquired: 3, notFound: 4, duplicate: 5 } as const;

/** The `state` actions this module owns; every other `state` action is the offline admin CLI. */
export const JOB_STATE_ACTIONS: readonly string[] = ['get', 'set', 'delete', 'keys'];

export function isJobVerb(word: string | undefined): word is JobVerb {
  return JOB_VERBS.includes(word as JobVerb);
}

/**
 * For `cronstable state ...`: true when argv (the words after `state`) names a job action
 * (get/set/delete/keys), so the dispatcher calls `runJobVerb('state', argv)`; false for
 * the admin actions (check/gc/backup/restore/migrate/migrate-schema), no action, or `--help`.
 */
export function isJobStateAction(argv: readonly string[]): boolean {
  return argv[0] !== undefined && JOB_STATE_ACTIONS.includes(argv[0]);
}

const DASHDASH = '`--` is only valid before a `lock run` command';

/** A failure with its exit code and the message printed as `cronstable <verb>: <message>`. */
class Fail extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Ctx {
  verb: JobVerb;
  io: JobVerbIo;
  options: Record<string, OptionValue | undefined>;
  args: Record<string, string | undefined>;
  /** `lock run`: everything after the first `--`. */
  command: string[] | undefined;
  /** Created lazily so usage errors and --help never need the environment. */
  client: () => JobApiClient;
}

function scopeOf(ctx: Ctx): string | undefined {
  if (ctx.options.global) return 'global';
  const s = ctx.options.scope;
  return typeof s === 'string' ? s : undefined;
}

async function call(
  ctx: Ctx,
  method: 'GET' | 'POST',
  path: string,
  opts: Parameters<JobApiClient['request']>[2] = {},
): Promise<JobApiResponse> {
  try {
    return await ctx.client().request(method, path, opts);
  } catch (e) {
    if (e instanceof NotInJobError) throw new Fail(EXIT.error, e.message);
    throw new Fail(EXIT.error, errorText(e));
  }
}

/** The JSON body of a 200 reply; 404 → `notFound` (exit 4) when given; anything else → exit 1. */
function expect(res: JobApiResponse, notFound?: string): Record<string, unknown> {
  if (res.status === 404 && notFound !== undefined && res.json !== undefined)
    throw new Fail(EXIT.notFound, notFound);
  if (res.status < 200 || res.status >= 300) throw new Fail(EXIT.error, describeFailure(res));
  if (res.json === null || typeof res.json !== 'object')
    throw new Fail(EXIT.error, `unexpected reply from the state endpoint (HTTP ${res.status})`);
  return res.json as Record<string, unknown>;
}

function printLines(ctx: Ctx, lines: string[]): void {
  if (lines.length > 0) ctx.io.out(`${lines.join('\n')}\n`);
}

async function readInput(ctx: Ctx, file: string | undefined): Promise<Uint8Array> {
  if (file === undefined || file === '-') return ctx.io.stdin();
  try {
    return await readFile(file);
  } catch (e) {
    throw new Fail(EXIT.error, `cannot read ${file}: ${(e as NodeJS.ErrnoException).message}`);
  }
}

async function writeOutput(ctx: Ctx, file: OptionValue | undefined, bytes: Uint8Array): Promise<void> {
  if (typeof file !== 'string' || file === '-') {
    ctx.io.out(bytes);
    return;
  }
  try {
    await writeFile(file, bytes);
  } catch (e) {
    throw new Fail(EXIT.error, `cannot write ${file}: ${(e as NodeJS.ErrnoException).message}`);
  }
}

/** `state set --json VALUE`: validated here, sent verbatim so exact numbers reach the server. */
function jsonValueText(text: string): string {
  try {
    JSON.parse(text);
    return text.trim();
  } catch (e) {
    // Python's json.loads accepts NaN/Infinity: let the server refuse them as non-portable.
    if (scanLexemes(text).nonFinite) return text.trim();
    throw new Fail(EXIT.error, `VALUE is not valid JSON: ${errorText(e)}`);
  }
}

type Action = (ctx: Ctx) => Promise<number>;

const ACTIONS: Record<JobVerb, Record<string, Action>> = {
  state: {
    async get(ctx) {
      const key = ctx.args.KEY!;
      const body = expect(
        await call(ctx, 'GET', '/v1/kv/get', { query: { key, scope: scopeOf(ctx) } }),
        `key not found: ${key}`,
      );
      ctx.io.out(`${formatValue(body.value)}\n`);
      return EXIT.ok;
    },
    async set(ctx) {
      const key = ctx.args.KEY!;
      const raw = ctx.args.VALUE!;
      const scope = scopeOf(ctx);
      const head = `{"key":${JSON.stringify(key)}${scope === undefined ? '' : `,"scope":${JSON.stringify(scope)}`}`;
      const value = ctx.options.json ? jsonValueText(raw) : JSON.stringify(raw);
      expect(await call(ctx, 'POST', '/v1/kv/set', { rawJson: `${head},"value":${value}}` }));
      return EXIT.ok;
    },
    async delete(ctx) {
      const key = ctx.args.KEY!;
      const body = expect(await call(ctx, 'POST', '/v1/kv/delete', { json: { key, scope: scopeOf(ctx) } }));
      if (body.existed) return EXIT.ok;
      throw new Fail(EXIT.notFound, `key not found: ${key}`);
    },
    async keys(ctx) {
      const body = expect(await call(ctx, 'GET', '/v1/kv/list', { query: { scope: scopeOf(ctx) } }));
      const keys = (body.keys as { key: string }[] | undefined) ?? [];
      printLines(
        ctx,
        keys.map((k) => k.key),
      );
      return EXIT.ok;
    },
  },
  cursor: {
    async get(ctx) {
      const name = ctx.args.NAME!;
      const body = expect(
        await call(ctx, 'GET', '/v1/cursor/get', { query: { name, scope: scopeOf(ctx) } }),
        `cursor not set: ${name}`,
      );
      ctx.io.out(`${formatValue(body.value)}\n`);
      return EXIT.ok;
    },
    async advance(ctx) {
      const name = ctx.args.NAME!;
      const value = parseCursorValue(ctx.args.VALUE!);
      const body = expect(
        await call(ctx, 'POST', '/v1/cursor/advance', {
          json: { name, value, force: ctx.options.force === true, scope: scopeOf(ctx) },
        }),
      );
      ctx.io.out(`${formatValue(body.value)}\n`);
      return EXIT.ok;
    },
  },
  idempotent: {
    async ''(ctx) {
      const key = ctx.args.KEY!;
      const scope = scopeOf(ctx);
      if (ctx.options.release) {
        expect(await call(ctx, 'POST', '/v1/idempotency/release', { json: { key, scope } }));
        return EXIT.ok;
      }
      const ttl = ctx.options.ttl ?? 0;
      const body = expect(await call(ctx, 'POST', '/v1/idempotency/claim', { json: { key, ttl, scope } }));
      return body.fresh === true ? EXIT.ok : EXIT.duplicate;
    },
  },
  lock: {
    async acquire(ctx) {
      const token = await acquireLock(ctx);
      ctx.io.out(`${token}\n`);
      return EXIT.ok;
    },
    async run(ctx) {
      // The command was split off before parsing (see runJobVerb).
      const command = ctx.command ?? [];
      if (command.length === 0)
        throw new Fail(EXIT.error, 'no command given (usage: cronstable lock run NAME [flags] -- CMD...)');
      // Only `lock run` spawns: the other verbs never load node:child_process.
      const { SignalRelay, signalExitCode } = await import('./job-lockrun.ts');
      const relay = new SignalRelay().install();
      let token: string | null = null;
      try {
        try {
          token = await acquireLock(ctx, relay.signal);
        } catch (e) {
          // Interrupted while acquiring: the daemon drops a lease won for a vanished client.
          if (relay.received) return signalExitCode(relay.received);
          throw e;
        }
        if (relay.received) return signalExitCode(relay.received);
        const outcome = await relay.run(command, ctx.io.env);
        if ('error' in outcome) throw new Fail(EXIT.error, outcome.error);
        return outcome.code;
      } finally {
        if (token !== null) await releaseQuietly(ctx, token);
        relay.uninstall();
      }
    },
    async release(ctx) {
      expect(await call(ctx, 'POST', '/v1/lock/release', { json: { token: ctx.args.TOKEN! } }));
      return EXIT.ok;
    },
  },
  artifact: {
    async put(ctx) {
      const name = ctx.args.NAME!;
      const bytes = await readInput(ctx, ctx.args.FILE);
      const body = expect(
        await call(ctx, 'POST', '/v1/artifact/put', { query: { name, scope: scopeOf(ctx) }, body: bytes }),
      );
      ctx.io.out(`${String(body.sha256)}\n`);
      return EXIT.ok;
    },
    async get(ctx) {
      const name = ctx.args.NAME!;
      const res = await call(ctx, 'GET', '/v1/artifact/get', { query: { name, scope: scopeOf(ctx) } });
      if (res.status !== 200) expect(res, `artifact not found: ${name}`);
      await writeOutput(ctx, ctx.options.output, res.bytes);
      return EXIT.ok;
    },
    async list(ctx) {
      const body = expect(await call(ctx, 'GET', '/v1/artifact/list', { query: { scope: scopeOf(ctx) } }));
      const items = (body.artifacts as { name: string }[] | undefined) ?? [];
      printLines(
        ctx,
        items.map((a) => a.name),
      );
      return EXIT.ok;
    },
  },
  secret: {
    async get(ctx) {
      const name = ctx.args.NAME!;
      const body = expect(
        await call(ctx, 'GET', '/v1/secret/get', { query: { name } }),
        `secret not staged: ${name}`,
      );
      ctx.io.out(`${formatValue(body.value)}\n`);
      return EXIT.ok;
    },
    async list(ctx) {
      const body = expect(await call(ctx, 'GET', '/v1/secret/list'));
      printLines(ctx, (body.names as string[] | undefined) ?? []);
      return EXIT.ok;
    },
  },
  xcom: {
    async push(ctx) {
      const scope = xcomScope(ctx);
      const taskKey = ctx.io.env.CRONSTABLE_DAG_TASKKEY;
      if (!taskKey)
        throw new Fail(
          EXIT.error,
          'not running inside a cronstable DAG task: CRONSTABLE_DAG_TASKKEY is not set',
        );
      const bytes = await readInput(ctx, ctx.args.FILE);
      const name = `${taskKey}/${String(ctx.options.key)}`;
      expect(await call(ctx, 'POST', '/v1/artifact/put', { query: { name, scope }, body: bytes }));
      return EXIT.ok;
    },
    async pull(ctx) {
      const scope = xcomScope(ctx);
      const task = String(ctx.options.task);
      const key = String(ctx.options.key);
      const index = ctx.options.mapIndex;
      const name = `${task}${index === undefined ? '' : `#${String(index)}`}/${key}`;
      const res = await call(ctx, 'GET', '/v1/artifact/get', { query: { name, scope } });
      if (res.status !== 200) expect(res, `no xcom '${key}' from task '${task}'`);
      await writeOutput(ctx, ctx.options.output, res.bytes);
      return EXIT.ok;
    },
    async list(ctx) {
      const scope = xcomScope(ctx);
      const body = expect(await call(ctx, 'GET', '/v1/artifact/list', { query: { scope } }));
      const names = ((body.artifacts as { name: string }[] | undefined) ?? [])
        .map((a) => a.name)
        .sort(compareCodePoints);
      printLines(ctx, names);
      return EXIT.ok;
    },
  },
};

function xcomScope(ctx: Ctx): string {
  const scope = ctx.io.env.CRONSTABLE_DAG_XCOM_SCOPE;
  if (!scope) throw new Fail(EXIT.error, 'not running inside a cronstable DAG task');
  return scope;
}

/** Releases after `lock run`; one retry covers a keep-alive connection closed while the command ran. */
async function releaseQuietly(ctx: Ctx, token: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await ctx.client().post('/v1/lock/release', { token });
      if (res.status !== 200)
        ctx.io.err(`cronstable lock: warning: release failed: ${describeFailure(res)}\n`);
      return;
    } catch (e) {
      if (attempt === 0) continue;
      ctx.io.err(
        `cronstable lock: warning: release failed (the daemon releases it at run end): ${errorText(e)}\n`,
      );
      return;
    }
  }
}

async function acquireLock(ctx: Ctx, signal?: AbortSignal): Promise<string> {
  const name = ctx.args.NAME!;
  const wait = ctx.options.wait === true;
  const timeout = typeof ctx.options.timeout === 'number' ? ctx.options.timeout : 0;
  const json: Record<string, unknown> = {
    name,
    scope: scopeOf(ctx),
    permits: ctx.options.permits ?? 1,
    wait,
    blockSeconds: wait ? timeout : 0,
  };
  if (ctx.options.ttl !== undefined) json.ttl = ctx.options.ttl;
  const budget = wait && Number.isFinite(timeout) && timeout > 0 ? timeout : 0;
  const res = await call(ctx, 'POST', '/v1/lock/acquire', { json, timeoutMs: (budget + 30) * 1000, signal });
  const body = expect(res);
  if (body.acquired !== true || typeof body.token !== 'string')
    throw new Fail(EXIT.notAcquired, `lock not acquired: ${name}`);
  return body.token;
}

/** Runs one job verb; returns the process exit code. */
export async function runJobVerb(verb: JobVerb, argv: string[], io: JobVerbIo): Promise<number> {
  const prefix = `cronstable ${verb}`;
  const table = JOB_COMMANDS[verb];
  const hasActions = !('' in table);
  // `--` is split off before parsing, and only `lock run` may have one.
  let rest = argv;
  let command: string[] | undefined;
  const dd = argv.indexOf('--');
  if (dd >= 0) {
    if (!(verb === 'lock' && argv[0] === 'run')) {
      io.err(`${prefix}: ${DASHDASH}\n`);
      return EXIT.usage;
    }
    command = argv.slice(dd + 1);
    rest = argv.slice(0, dd);
  }
  let action = '';
  if (hasActions) {
    const first = rest[0];
    if (first === '-h' || first === '--help') {
      io.out(verbHelp(verb));
      return EXIT.ok;
    }
    if (first === undefined || first.startsWith('-')) {
      io.err(`${prefix}: no action given (see --help)\n`);
      return EXIT.usage;
    }
    action = first;
    rest = rest.slice(1);
    if (!Object.hasOwn(table, action)) {
      const names = Object.keys(table);
      io.err(`usage: ${prefix} [-h] {${names.join(',')}} ...\n`);
      io.err(
        `${prefix}: error: argument action: invalid choice: '${action}' (choose from ${names.map((a) => `'${a}'`).join(', ')})\n`,
      );
      return EXIT.usage;
    }
  }
  const spec = table[action]!;
  const parsed = parseCommand(spec, rest);
  if (parsed.kind === 'help') {
    io.out(helpText(spec));
    return EXIT.ok;
  }
  if (parsed.kind === 'error') {
    io.err(`${usageLine(spec)}\n${spec.prog}: error: ${parsed.message}\n`);
    return EXIT.usage;
  }
  let client: JobApiClient | null = null;
  const ctx: Ctx = {
    verb,
    io,
    options: parsed.options,
    args: parsed.positionals,
    command,
    client: () => {
      client ??= JobApiClient.fromEnv(io.env);
      return client;
    },
  };
  try {
    if (verb !== 'xcom') ctx.client();
    return await ACTIONS[verb][action]!(ctx);
  } catch (e) {
    if (e instanceof Fail) {
      io.err(`${prefix}: ${e.message}\n`);
      return e.code;
    }
    io.err(`${prefix}: ${errorText(e)}\n`);
    return EXIT.error;
  } finally {
    (client as JobApiClient | null)?.close();
  }
}

async function readProcessStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The dispatcher's entry: runs `argv` (the whole command line after the program name) when
 * it is a job verb — `cursor|idempotent|lock|artifact|secret|xcom ...`, or `state` with a job
 * action (get/set/delete/keys) — with the process streams and environment; null otherwise
 * (`state check|gc|backup|restore|migrate|migrate-schema`, bare `state`, `state --help` go to
 * the admin CLI).
 */
export async function dispatchJobVerb(argv: string[]): Promise<number | null> {
  const [verb, ...rest] = argv;
  if (!isJobVerb(verb) || (verb === 'state' && !isJobStateAction(rest))) return null;
  return runJobVerb(verb, rest, {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    env: process.env,
    stdin: readProcessStdin,
  });
}
