// DAG routes: the placeholder answers until the engine exists, and the `ctx.dags` plug-in contract
// (status mapping, JSON body checks, task log streams) with a small in-test engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DagAnswer, DagWebApi, LiveLineSink } from '../../src/api/context.ts';
import { type Harness, job, LOOPBACK, readSse, startHarness } from './web-harness.ts';

class TinyDags implements DagWebApi {
  decisions: Record<string, unknown>[] = [];
  sink: LiveLineSink | null = null;
  async list() {
    return [{ name: 'release', enabled: true, scheduled: false, retainRuns: 10, tasks: [] }];
  }
  private known(dag: string): DagAnswer | null {
    return dag === 'release' ? null : { ok: false, status: 404, error: `unknown dag '${dag}'` };
  }
  async runs(dag: string, limit: number): Promise<DagAnswer> {
    return this.known(dag) ?? { ok: true, body: { dag, runs: [], limit } };
  }
  async run(dag: string, runKey: string): Promise<DagAnswer> {
    return this.known(dag) ?? { ok: true, body: { runKey, tasks: { gate: { state: 'awaiting_approval' } } } };
  }
  async xcom(dag: string, runKey: string): Promise<DagAnswer> {
    return this.known(dag) ?? { ok: true, body: { dag, runKey, entries: [], truncated: false } };
  }
  async trigger(dag: string): Promise<DagAnswer> {
    return this.known(dag) ?? { ok: true, body: { dag, runKey: 'manual-0123456789ab' } };
  }
  async backfill(dag: string, body: Record<string, unknown>): Promise<DagAnswer> {
    if (dag !== 'release') return { ok: false, status: 400, error: 'no such scheduled dag' };
    return typeof body.from === 'string'
      ? { ok: true, body: { ok: true, created: 2 } }
      : { ok: false, status: 400, error: 'bad date range' };
  }
  async decide(
    dag: string,
    _runKey: string,
    task: string,
    body: Record<string, unknown>,
  ): Promise<DagAnswer> {
    this.decisions.push(body);
    if (dag !== 'release') return { ok: false, status: 409, error: 'no such dag' };
    if (task !== 'gate') return { ok: false, status: 409, error: 'no such task' };
    return { ok: true, body: { ok: true, state: 'success' } };
  }
  taskOutput(dag: string, _runKey: string, task: string) {
    if (dag !== 'release') return null;
    if (task !== 'build') return 'idle' as const;
    return {
      lines: [{ stream: 'stdout' as const, line: 'compiling\n' }],
      published: 1,
      startedAt: 0,
      follow: (fn: LiveLineSink) => {
        this.sink = fn;
        return () => {
          this.sink = null;
        };
      },
    };
  }
}

describe('DAG routes', () => {
  let h: Harness;
  let base: string;
  const dags = new TinyDags();
  beforeAll(async () => {
    h = await startHarness(job('a', 'true', '0 0 1 1 *'), LOOPBACK, {
      wire: (ctx) => {
        ctx.dags = dags;
      },
    });
    base = h.base;
  });
  afterAll(async () => {
    await h.stop();
  });

  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(base + path, { method, body });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };

  it('delegates reads and maps errors to JSON bodies', async () => {
    expect((await call('GET', '/dags')).json).toHaveLength(1);
    expect(await call('GET', '/dags/release/runs?limit=9999')).toEqual({
      status: 200,
      json: { dag: 'release', runs: [], limit: 500 },
    });
    expect((await call('GET', '/dags/release/runs/manual-1')).json.tasks.gate.state).toBe(
      'awaiting_approval',
    );
    expect(await call('GET', '/dags/nope/runs')).toEqual({
      status: 404,
      json: { error: "unknown dag 'nope'" },
    });
    expect((await call('POST', '/dags/release/trigger')).json).toEqual({
      dag: 'release',
      runKey: 'manual-0123456789ab',
    });
  });

  it('checks request bodies before the engine sees them', async () => {
    expect(await call('POST', '/dags/release/backfill', '{not json')).toEqual({
      status: 400,
      json: { error: 'request body is not valid JSON' },
    });
    expect(
      await call('POST', '/dags/release/backfill', `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
    ).toEqual({
      status: 400,
      json: { error: 'request body nests deeper than 512 levels' },
    });
    expect(await call('POST', '/dags/release/backfill', '[1]')).toEqual({
      status: 400,
      json: { error: 'request body must be a JSON object' },
    });
    expect(
      await call(
        'POST',
        '/dags/release/backfill',
        '{"from":"2026-07-05T09:00:00Z","to":"2026-07-05T09:30:00+00:00"}',
      ),
    ).toEqual({
      status: 200,
      json: { ok: true, created: 2 },
    });
    expect(await call('POST', '/dags/nope/backfill', '{}')).toEqual({
      status: 400,
      json: { error: 'no such scheduled dag' },
    });
    expect(
      await call('POST', '/dags/release/runs/rk/tasks/gate/decision', '{"decision":"approve","by":"me"}'),
    ).toEqual({
      status: 200,
      json: { ok: true, state: 'success' },
    });
    expect(dags.decisions.at(-1)).toEqual({ decision: 'approve', by: 'me' });
    expect(await call('POST', '/dags/release/runs/rk/tasks/other/decision', '{"decision":"reject"}')).toEqual(
      {
        status: 409,
        json: { error: 'no such task' },
      },
    );
  });

  it('streams a running task, and answers no-output for an idle one', async () => {
    expect(await readSse(await fetch(`${base}/dags/release/runs/rk/tasks/lint/logs`))).toEqual([
      { event: 'end', data: { reason: 'no-output' } },
    ]);
    const res = await fetch(`${base}/dags/release/runs/rk/tasks/build/logs`);
    const events = readSse(res);
    await new Promise((r) => setTimeout(r, 50));
    dags.sink!({ stream: 'stderr', line: 'warning: x\n' });
    dags.sink!('end');
    expect(await events).toEqual([
      { event: 'line', data: { stream: 'stdout', line: 'compiling' } },
      { event: 'line', data: { stream: 'stderr', line: 'warning: x' } },
      { event: 'end', data: {} },
    ]);
    expect((await fetch(`${base}/dags/nope/runs/rk/tasks/build/logs`)).status).toBe(404);
  });
});
