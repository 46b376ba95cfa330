// The three local sinks of the grand tour, started together on fixed ports (the CLI) or on
// free ones (tests). A fixed port that is taken falls back to a free one, reported through `note`.
import { preferredPort } from '../../fleet/ports.ts';
import { type SmtpSink, startSmtpSink } from './smtp.ts';
import { type StatsdSink, startStatsdSink } from './statsd.ts';
import { startWebhookSink, type WebhookSink } from './webhook.ts';

export type { InboxMessage, SmtpSink } from './smtp.ts';
export type { StatsdSink } from './statsd.ts';
export type { WebhookHit, WebhookSink } from './webhook.ts';

/** The ports the Docker tour publishes (Mailpit 1025/8025, statsd-exporter 9125/9102) plus the echo server's. */
export const SINK_PORTS = {
  smtp: 1025,
  inbox: 8025,
  webhook: 8090,
  statsdUdp: 9125,
  statsdHttp: 9102,
} as const;

export interface TourSinks {
  smtp: SmtpSink;
  webhook: WebhookSink;
  statsd: StatsdSink;
  stop(): Promise<void>;
}

export interface StartSinksOptions {
  /** 'fixed' (default): the SINK_PORTS, falling back to free ports when taken; 'free': OS-chosen. */
  ports?: 'fixed' | 'free';
  host?: string;
  smtpUsers?: Record<string, string>;
  /** Where the sinks log mail, webhooks and rejected statsd lines. */
  log?: (text: string) => void;
  /** Told about every fixed port that was taken. */
  note?: (text: string) => void;
}

/** The sink's fixed port when free ('fixed' mode), else 0: the OS picks one. */
const pick = async (host: string, port: number, fixed: boolean, what: string, note?: (t: string) => void) =>
  fixed ? ((await preferredPort(host, port, what, note)) ?? 0) : 0;

export async function startSinks(opts: StartSinksOptions = {}): Promise<TourSinks> {
  const host = opts.host ?? '127.0.0.1';
  const fixed = (opts.ports ?? 'fixed') === 'fixed';
  const started: { stop(): Promise<void> }[] = [];
  try {
    const smtp = await startSmtpSink({
      host,
      smtpPort: await pick(host, SINK_PORTS.smtp, fixed, 'smtp sink (SMTP)', opts.note),
      httpPort: await pick(host, SINK_PORTS.inbox, fixed, 'smtp sink (inbox)', opts.note),
      users: opts.smtpUsers,
      log: opts.log,
    });
    started.push(smtp);
    const webhook = await startWebhookSink({
      host,
      port: await pick(host, SINK_PORTS.webhook, fixed, 'webhook sink', opts.note),
      log: opts.log,
    });
    started.push(webhook);
    // UDP: canBind checks TCP; a taken UDP port surfaces as the bind error below.
    const statsd = await startStatsdSink({
      host,
      udpPort: fixed ? SINK_PORTS.statsdUdp : 0,
      httpPort: await pick(host, SINK_PORTS.statsdHttp, fixed, 'statsd sink (metrics)', opts.note),
      log: opts.log,
    }).catch(async (e: Error) => {
      if (!fixed) throw e;
      opts.note?.(`${e.message}; using a free UDP port instead`);
      return startStatsdSink({ host, udpPort: 0, httpPort: 0, log: opts.log });
    });
    started.push(statsd);
    return {
      smtp,
      webhook,
      statsd,
      stop: async () => {
        await Promise.all(started.map((s) => s.stop()));
      },
    };
  } catch (e) {
    await Promise.all(started.map((s) => s.stop()));
    throw e;
  }
}
