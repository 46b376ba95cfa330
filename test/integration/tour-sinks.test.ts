// The grand tour's local sinks (scripts/tour/sinks) over real sockets: nodemailer -> the SMTP
// sink and its inbox, fetch -> the webhook echo server, dgram -> the statsd listener's /metrics.
import { createSocket } from 'node:dgram';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../scripts/fleet/fleet.ts';
import { type InboxMessage, type SmtpSink, startSmtpSink } from '../../scripts/tour/sinks/smtp.ts';
import { type StatsdSink, startStatsdSink } from '../../scripts/tour/sinks/statsd.ts';
import { startWebhookSink, type WebhookHit, type WebhookSink } from '../../scripts/tour/sinks/webhook.ts';

describe('smtp sink', () => {
  let sink: SmtpSink;
  const logged: string[] = [];
  beforeAll(async () => {
    sink = await startSmtpSink({ users: { cronstable: 's3cret' }, log: (l) => logged.push(l) });
  });
  afterAll(() => sink.stop());

  const transport = (auth?: { user: string; pass: string }) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: sink.smtpPort,
      secure: false,
      ignoreTLS: true,
      auth,
    });

  it('takes an authenticated HTML mail and shows it in the inbox and the JSON list', async () => {
    await transport({ user: 'cronstable', pass: 's3cret' }).sendMail({
      from: 'cronstable@meridian.example',
      to: 'oncall@meridian.example, security@meridian.example',
      subject: '[meridian] certificate expiry: cert-expiry-check failed',
      html: '<h2>cert-expiry-check failed</h2><p>Exit code <b>1</b>.</p>',
    });
    const list = (await (await fetch(sink.apiUrl)).json()) as InboxMessage[];
    expect(list).toHaveLength(1);
    const m = list[0]!;
    expect(m.authUser).toBe('cronstable');
    expect(m.subject).toBe('[meridian] certificate expiry: cert-expiry-check failed');
    expect(m.envelopeTo).toEqual(['oncall@meridian.example', 'security@meridian.example']);
    expect(m.html).toContain('<b>1</b>');
    const page = await (await fetch(sink.url)).text();
    expect(page).toContain('certificate expiry: cert-expiry-check failed');
    expect(page).toContain(`href="/messages/${m.id}"`);
    const one = await fetch(`${sink.url}messages/${m.id}`);
    expect(one.headers.get('content-type')).toContain('text/html');
    // The HTML body is framed and escaped, never inlined into the page.
    expect(await one.text()).toContain('srcdoc="&lt;h2&gt;cert-expiry-check failed');
    expect(logged.at(-1)).toContain('certificate expiry');
  });

  it('takes anonymous mail too, and refuses a wrong password with 535', async () => {
    await transport().sendMail({
      from: 'a@x.example',
      to: 'ops@meridian.example',
      subject: 'hi',
      text: 'plain',
    });
    expect(sink.messages.at(-1)).toMatchObject({ authUser: null, subject: 'hi', html: null });
    expect(sink.messages.at(-1)!.text.trim()).toBe('plain');
    await expect(
      transport({ user: 'cronstable', pass: 'nope' }).sendMail({
        from: 'a@x.example',
        to: 'b@x.example',
        text: 'x',
      }),
    ).rejects.toMatchObject({ responseCode: 535 });
  });

  it('answers JSON errors for unknown routes and messages', async () => {
    const res = await fetch(`${sink.url}messages/999`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no message 999' });
    expect((await fetch(`${sink.url}nope`)).status).toBe(404);
    const del = await fetch(sink.apiUrl, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(sink.messages).toHaveLength(0);
  });
});

describe('webhook sink', () => {
  let sink: WebhookSink;
  const logged: string[] = [];
  beforeAll(async () => {
    sink = await startWebhookSink({ log: (t) => logged.push(t) });
  });
  afterAll(() => sink.stop());

  it('logs and keeps every request: method, path, headers and body', async () => {
    const body = JSON.stringify({ job: 'db-health-orders', exit_code: '69' });
    const res = await fetch(`${sink.url}/hooks/db-health?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-meridian-severity': 'critical' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      received: { method: 'POST', path: '/hooks/db-health?x=1' },
    });
    await fetch(`${sink.url}/hooks/heartbeat`, { method: 'PUT', body: 'not json' });
    const hits = (await (await fetch(sink.requestsUrl)).json()) as WebhookHit[];
    expect(hits.map((h) => [h.id, h.method, h.path])).toEqual([
      [1, 'POST', '/hooks/db-health?x=1'],
      [2, 'PUT', '/hooks/heartbeat'],
    ]);
    expect(hits[0]!.headers['x-meridian-severity']).toBe('critical');
    expect(hits[0]!.json).toEqual({ job: 'db-health-orders', exit_code: '69' });
    expect(hits[1]!.body).toBe('not json');
    expect(hits[1]!.json).toBeUndefined();
    expect(logged[0]).toContain('POST /hooks/db-health?x=1');
    expect(logged[0]).toContain('x-meridian-severity: critical');
    expect(logged[0]).toContain('"job":"db-health-orders"');
  });

  it('clears its list on DELETE and refuses other methods on it with a JSON error', async () => {
    expect((await fetch(sink.requestsUrl, { method: 'DELETE' })).status).toBe(200);
    expect(sink.hits).toHaveLength(0);
    const res = await fetch(sink.requestsUrl, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(await res.json()).toHaveProperty('error');
  });
});

describe('statsd sink', () => {
  let sink: StatsdSink;
  beforeAll(async () => {
    sink = await startStatsdSink();
  });
  afterAll(() => sink.stop());

  it('serves what arrives over UDP as Prometheus text on /metrics', async () => {
    const udp = createSocket('udp4');
    const send = (text: string) =>
      new Promise<void>((r, j) => udp.send(text, sink.udpPort, '127.0.0.1', (e) => (e ? j(e) : r())));
    await send('meridian.queue.depth_probe.start:1|g\n');
    await send(
      'meridian.queue.depth_probe.stop:1|g\nmeridian.queue.depth_probe.success:0|g\nmeridian.queue.depth_probe.duration:250|ms|@0.1\n',
    );
    await send('tour.hits:3|c\ngarbage\n');
    udp.close();
    const text = await waitUntil(
      async () => {
        const t = await (await fetch(sink.metricsUrl)).text();
        return t.includes('tour_hits') ? t : null;
      },
      { timeoutMs: 5000, label: 'the datagrams on /metrics', everyMs: 20 },
    );
    expect(text).toContain('meridian_queue_depth_probe_start 1\n');
    expect(text).toContain('meridian_queue_depth_probe_success 0\n');
    expect(text).toContain('meridian_queue_depth_probe_duration{quantile="0.5"} 0.25\n');
    expect(text).toContain('meridian_queue_depth_probe_duration_count 10\n');
    expect(text).toContain('# TYPE tour_hits counter\ntour_hits 3\n');
    expect(text).toContain('statsd_sink_packets_total 3\n');
    expect(text).toContain('statsd_sink_rejected_lines_total 1\n');
    const res = await fetch(sink.metricsUrl);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  });
});
