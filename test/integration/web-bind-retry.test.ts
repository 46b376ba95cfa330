// The bind retry (spec 10 §3.6, vector 42) on a real daemon: B starts on a port another process
// holds, logs that nothing could be bound, and comes up on its own once the port is free. The
// retry pass is the reference's 60 s in the product; the test hook shortens it to half a second.
// TLS files that do not load at start take the same retry, and so does a restart for a changed
// config whose new TLS files do not load yet (the running listener is kept meanwhile).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from '../helpers/child.ts';
import { DAEMON } from '../helpers/e2e-daemon.ts';
import { hasOpenssl, mintPki } from '../helpers/pki.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const NOT_UP =
  'web: no listen address could be bound, so the web API is not up; retrying on the next housekeeping pass';

/** Starts the built daemon on `yaml` with a half-second retry pass; `logs()` is all it printed. */
function daemon(yaml: string): { child: ChildProcess; logs: () => string; dir: string } {
  const dir = writeTree({ 'cronstable.yaml': yaml }, true);
  let out = '';
  const child = spawn(process.execPath, [DAEMON, '-c', dir], {
    cwd: dir,
    env: { ...process.env, CRONSTABLE_TEST_WEB_RETRY_MS: '500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (c: Buffer) => {
      out += c.toString();
    });
  started.push(child);
  return { child, logs: () => out, dir };
}

const started: ChildProcess[] = [];
const JOBS = 'jobs:\n  - name: tick\n    command: "echo hi"\n    schedule: "0 0 1 1 *"\n';
const answers = async (url: string) => ((await fetch(url).catch(() => null))?.ok ? true : null);

describe('spec 10 §3.1, §3.6: a web API that cannot come up retries', () => {
  afterAll(() => Promise.all(started.map((c) => stopChild(c))));

  it('v42: a daemon whose every listen address is taken retries until the holder lets go', async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(port, '127.0.0.1', r));
    const base = `http://127.0.0.1:${port}`;
    const b = daemon(`${JOBS}web:\n  listen:\n    - ${base}\n`);
    const logs = () => b.logs();
    await until('B to log that nothing could be bound', 20_000, async () =>
      logs().includes(NOT_UP) ? true : null,
    );
    // Two retry passes later, A still holds the port: B keeps failing and never claims to listen.
    await until('a retry pass', 10_000, async () => (logs().split(NOT_UP).length > 2 ? true : null));
    expect(logs()).not.toContain(`web: started listening on ${base}`);

    await new Promise<void>((r) => holder.close(() => r()));
    await until('B to answer once A let go', 10_000, () => answers(`${base}/version`));
    expect(logs().lastIndexOf(`web: started listening on ${base}`)).toBeGreaterThan(
      logs().lastIndexOf(NOT_UP),
    );
  });

  it.skipIf(!hasOpenssl)(
    '§3.1: TLS files that do not load keep every listener down (never plaintext) until they do',
    async () => {
      const pki = mintPki(writeTree({ 'keep.txt': '' }, true));
      const good = readFileSync(pki.cert);
      writeFileSync(pki.cert, 'half-written\n');
      const [q, p] = [await freePort(), await freePort()];
      const d = daemon(
        `${JOBS}web:\n  listen:\n    - https://127.0.0.1:${q}\n    - http://127.0.0.1:${p}\n  tls:\n    cert: ${pki.cert}\n    key: ${pki.key}\n`,
      );
      const down =
        'web: TLS material is not loadable, so the web API is not starting (retrying on the next config reload): ';
      await until('the not-loadable error', 20_000, async () => (d.logs().includes(down) ? true : null));
      // The plaintext listener of the same list stays down too.
      expect(await answers(`http://127.0.0.1:${p}/version`)).toBeNull();
      expect(d.logs()).not.toContain('web: started listening');
      writeFileSync(pki.cert, good);
      await until('the web API once the files load', 10_000, () => answers(`http://127.0.0.1:${p}/version`));
      expect(d.logs()).toContain(`web: started listening on https://127.0.0.1:${q}`);
    },
  );

  it.skipIf(!hasOpenssl)(
    '§3.4: a config change that meets half-written TLS files keeps the running listener, then restarts once they load',
    async () => {
      const pki = mintPki(writeTree({ 'keep.txt': '' }, true));
      const [q, p, p2] = [await freePort(), await freePort(), await freePort()];
      const web = (extra: string) =>
        `${JOBS}web:\n  listen:\n    - https://127.0.0.1:${q}\n    - http://127.0.0.1:${p}\n${extra}  tls:\n    cert: ${pki.cert}\n    key: ${pki.key}\n`;
      const d = daemon(web(''));
      await until('the first start', 20_000, () => answers(`http://127.0.0.1:${p}/version`));
      const good = readFileSync(pki.cert);
      writeFileSync(pki.cert, 'half-written\n');
      writeFileSync(join(d.dir, 'cronstable.yaml'), web(`    - http://127.0.0.1:${p2}\n`));
      d.child.kill('SIGHUP');
      await until('the not-yet-loadable warning', 10_000, async () =>
        d.logs().includes('web: new TLS material is not yet loadable') ? true : null,
      );
      expect(await answers(`http://127.0.0.1:${p}/version`)).toBe(true);
      expect(await answers(`http://127.0.0.1:${p2}/version`)).toBeNull();
      expect(d.logs()).not.toContain('stopping http server');
      writeFileSync(pki.cert, good);
      await until('the restart on the next pass', 10_000, () => answers(`http://127.0.0.1:${p2}/version`));
      expect(d.logs()).toContain('web: configuration changed, stopping http server');
    },
  );
});
