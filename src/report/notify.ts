// The notifier (spec 09 §5.4): sends the events the `notify:` block allows through its report
// block, fire and forget, once per fleet where the event names a fleet key. The fleet meets in
// the shared store: the first node to claim an event's key sends it, the others only log it.
import type { NotifySettings } from '../config/types.ts';
import { errorText } from '../util/errors.ts';
import { dispatchReports } from './index.ts';
import {
  type NotifyEvent,
  type NotifyEventName,
  notifyContext,
  notifyReportBlock,
  QUORUM_INCIDENT_KEY,
} from './notify-event.ts';
import type { ReportLogger, ReportOptions } from './types.ts';

/** The fleet's meeting point (the store's create-if-absent claims); absent without `state:`. */
export interface NotifyClaims {
  /** True when this node is the first to claim `key` (or the last claim expired). */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

export interface NotifierDeps {
  logger: ReportLogger;
  /** The daemon's HOSTNAME, read when an event is sent. */
  host(): string;
  /** The default shell (the `shell` variable of an event's context). */
  shell: string;
  claims(): NotifyClaims | null;
  /** Reporter options beyond the logger (the mail budget in tests). */
  report?: Omit<ReportOptions, 'logger'>;
}

export class Notifier {
  private settings: NotifySettings | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: NotifierDeps) {}

  /** Installs the block at start and on every reload; a reload applies at once (spec 09 §5.1). */
  configure(settings: NotifySettings | null): void {
    this.settings = settings;
  }

  /** Whether an event of this kind would be reported: a filtered event builds nothing. */
  wants(event: NotifyEventName): boolean {
    return this.settings?.events.includes(event) ?? false;
  }

  /** Sends the event in the background; the raiser never waits (spec 09 §5.4). */
  raise(ev: NotifyEvent): void {
    const settings = this.settings;
    if (!settings?.events.includes(ev.event)) return;
    const p = this.deliver(settings, ev).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** This node regained quorum: the fleet's quorum incident is over, the next loss is news. */
  quorumRegained(): void {
    const claims = this.deps.claims();
    if (!claims || !this.wants('quorum_loss')) return;
    claims.release(QUORUM_INCIDENT_KEY).catch((e) => {
      this.deps.logger.debug(`notify: could not end the quorum incident: ${errorText(e)}`);
    });
  }

  /** Resolves once every event raised so far has been sent (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async deliver(settings: NotifySettings, ev: NotifyEvent): Promise<void> {
    const { logger } = this.deps;
    if (!(await this.firstInFleet(ev))) {
      logger.info(`Not reporting ${ev.event} event: another node of the fleet reported it (${ev.subject})`);
      return;
    }
    logger.info(`Reporting ${ev.event} event: ${ev.subject}`);
    await dispatchReports(
      'failure',
      notifyReportBlock(settings.report),
      notifyContext(ev, this.deps.host(), this.deps.shell),
      {
        ...this.deps.report,
        logger,
        problem: `${ev.event} event`,
      },
    );
  }

  /** A store that cannot answer does not silence an event: it is sent, perhaps twice. */
  private async firstInFleet(ev: NotifyEvent): Promise<boolean> {
    const claims = this.deps.claims();
    if (!ev.fleetKey || !claims) return true;
    try {
      return await claims.claim(ev.fleetKey.key, ev.fleetKey.ttlSeconds);
    } catch (e) {
      this.deps.logger.warning(
        `notify: could not check the fleet for an earlier ${ev.event} report (${errorText(e)}); sending it from this node`,
      );
      return true;
    }
  }
}
