// The notifier's fleet de-duplication (spec 09 §5.4) over a real SQLite store shared by two
// "nodes" (two connections to one file, as two daemons on one mount), posting to a real webhook
// listener: the same DAG event raised on both is sent once; a quorum incident is sent once until
// a node regains quorum; a store that cannot answer does not silence an event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import { daemonNotifier } from '../../src/daemon/notify.ts';
import type { Notifier } from '../../src/report/notify.ts';
import { approvalWaitingEvent, dagFailureEvent, quorumLossEvent } from '../../src/report/notify-event.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { RecordingLogger } from '../helpers/report-kit.ts';
import { httpSink } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

let sink: Awaited<ReturnType<typeof httpSink>>;
let stores: Store[] = [];
let nodes: { notifier: Notifier; log: RecordingLogger }[] = [];

beforeAll(async () => {
  sink = await httpSink();
  const dir = writeTree({}, true);
  const report = defaultReportBlock();
  report.webhook!.url = { value: `http://127.0.0.1:${sink.port}/n`, fromFile: null, fromEnvVar: null };
  stores = await Promise.all(
    [1, 2].map(() => openStore({ path: dir, namespace: 'claims', topology: 'shared', inline: true })),
  );
  nodes = stores.map((store) => {
    const log = new RecordingLogger();
    const notifier = daemonNotifier(log, () => store);
    notifier.configure({ events: ['dag_failure', 'approval_waiting', 'quorum_loss'], report });
    return { notifier, log };
  });
});

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  await sink?.close();
});

async function raiseOnBoth(make: () => Parameters<Notifier['raise']>[0]): Promise<void> {
  for (const n of nodes) n.notifier.raise(make());
  await Promise.all(nodes.map((n) => n.notifier.settled()));
}

describe('notify claims in a shared store', () => {
  it('sends a DAG event raised on two nodes once', async () => {
    await raiseOnBoth(() => dagFailureEvent('orders', 'k1', 'run-1', ['load']));
    await raiseOnBoth(() => approvalWaitingEvent('release', 'k2', 'run-2', 'gate'));
    expect(sink.hits.map((h) => JSON.parse(h.body).text.split('\n')[0])).toEqual([
      "cronstable dag_failure: DAG 'orders' run k1 failed",
      "cronstable approval_waiting: DAG 'release' run k2 awaiting approval: gate",
    ]);
    const skipped = nodes.flatMap((n) => n.log.at('info')).filter((m) => m.startsWith('Not reporting'));
    expect(skipped).toHaveLength(2);
    // Another run of the same DAG is news.
    await raiseOnBoth(() => dagFailureEvent('orders', 'k3', 'run-3', ['load']));
    expect(sink.hits).toHaveLength(3);
  });

  it('sends one quorum_loss per fleet incident; regaining quorum ends the incident', async () => {
    const before = sink.hits.length;
    await raiseOnBoth(() => quorumLossEvent('node-x'));
    expect(sink.hits).toHaveLength(before + 1);
    nodes[0]!.notifier.quorumRegained();
    // The release is in the background; the next loss is sent once it has landed.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && sink.hits.length === before + 1) {
      await raiseOnBoth(() => quorumLossEvent('node-y'));
      if (sink.hits.length === before + 1) await new Promise((r) => setTimeout(r, 50));
    }
    expect(sink.hits.slice(before).map((h) => JSON.parse(h.body).text.split('\n')[0])).toEqual([
      'cronstable quorum_loss: node node-x left quorum',
      'cronstable quorum_loss: node node-y left quorum',
    ]);
  });

  it('sends a filtered event nowhere, and sends anyway when the store cannot answer', async () => {
    const before = sink.hits.length;
    expect(nodes[0]!.notifier.wants('leader_change')).toBe(false);
    await stores[1]!.close();
    await raiseOnBoth(() => dagFailureEvent('orders', 'k4', 'run-4', ['load']));
    // Node 1 claimed it; node 2's store is closed, so it sends too rather than stay silent.
    expect(sink.hits).toHaveLength(before + 2);
    expect(nodes[1]!.log.at('warning')[0]).toMatch(
      /^notify: could not check the fleet for an earlier dag_failure report \(.*\); sending it from this node$/,
    );
  });
});
