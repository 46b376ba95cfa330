// statsd job metrics (spec 02 §12, spec 09 §8.1): one UDP datagram per event, fire and forget.
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { errorText } from '../util/errors.ts';
import type { ReportLogger, StatsdStopMetrics, StatsdTarget } from './types.ts';

/**
 * The prefix as it goes on the wire (spec 09 §8.1): CR, LF, `:` and `|` are removed, because each
 * would split a line or a field of the datagram and let a job name forge other metrics.
 */
export function statsdPrefix(raw: string): string {
  return raw.replace(/[\r\n:|]/g, '');
}

/** `<prefix>.start:1|g\n`. */
export function startDatagram(rawPrefix: string): string {
  return `${statsdPrefix(rawPrefix)}.start:1|g\n`;
}

/**
 * The stop datagram: stop, success, duration and, when monitored, cpu and max_rss. No sample rate:
 * every run is sent, and an `@0.1` made rate-honouring servers count each run ten times.
 */
export function stopDatagram(rawPrefix: string, m: StatsdStopMetrics): string {
  const prefix = statsdPrefix(rawPrefix);
  const lines = [
    `${prefix}.stop:1|g`,
    `${prefix}.success:${m.success ? 1 : 0}|g`,
    `${prefix}.duration:${Math.round(m.durationMs)}|ms`,
  ];
  if (m.cpuMs !== undefined && m.cpuMs !== null) lines.push(`${prefix}.cpu:${Math.round(m.cpuMs)}|ms`);
  if (m.maxRssBytes !== undefined && m.maxRssBytes !== null) {
    lines.push(`${prefix}.max_rss:${Math.round(m.maxRssBytes)}|g`);
  }
  return `${lines.join('\n')}\n`;
}

/** Resolves the host now (every send) and sends one datagram. */
async function sendDatagram(target: StatsdTarget, payload: string, logger: ReportLogger): Promise<void> {
  const { address, family } = await lookup(target.host);
  const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
  socket.on('error', (err) => logger.error(`UDP error received: ${err.message}`));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.send(Buffer.from(payload, 'utf8'), target.port, address, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  } finally {
    socket.close();
  }
}

async function send(
  target: StatsdTarget,
  payload: string,
  what: string,
  logger: ReportLogger,
): Promise<void> {
  try {
    await sendDatagram(target, payload, logger);
  } catch (err) {
    logger.warning(`Job ${target.job ?? target.prefix}: failed to send statsd ${what} metric`);
    logger.debug(`statsd: ${errorText(err)}`);
  }
}

/** Sends `<prefix>.start:1|g`. Never throws; resolves once the datagram is handed off. */
export function statsdStart(target: StatsdTarget, logger: ReportLogger): Promise<void> {
  return send(target, startDatagram(target.prefix), 'job_started', logger);
}

/** Sends the stop datagram. Never throws; resolves once the datagram is handed off. */
export function statsdStop(
  target: StatsdTarget,
  metrics: StatsdStopMetrics,
  logger: ReportLogger,
): Promise<void> {
  return send(target, stopDatagram(target.prefix, metrics), 'job_stopped', logger);
}
