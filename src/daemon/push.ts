// The daemon's side of phone alerts (spec 10 §6): the push channel for the applied `push:`
// section, rebuilt when the section changes on reload. The reporters and the device routes read
// it through `current()` and `web()`; nothing here loads libsodium (the first seal does).
import { type PushSettings, redactUserinfo } from '../config/push.ts';
import { openRegistry } from '../report/push/registry.ts';
import { PushService } from '../report/push/service.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';

const DRAIN_MS = 5_000;

export class DaemonPush {
  private service: PushService | null = null;
  private applied = 'null';
  private unavailable = false;

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly store: () => Store | null,
  ) {}

  apply(settings: PushSettings | null): void {
    const key = JSON.stringify(settings);
    if (key === this.applied) return;
    this.applied = key;
    this.service = null;
    this.unavailable = false;
    if (!settings) return;
    const registry = openRegistry(settings.devicesFile, this.store());
    if (!registry) {
      this.unavailable = true;
      this.log.error(
        'push: the device registry lives in the state store, which is not open; phone alerts are dropped until the daemon restarts with a working store',
      );
      return;
    }
    this.service = new PushService(settings, registry, this.log, this.clock);
    this.log.info(
      `push: phone alerts go to the relay at ${redactUserinfo(settings.relayUrl)}; devices are kept in ${settings.devicesFile ?? 'the state store'}`,
    );
  }

  /** The channel the reporters hand alerts to, or null. */
  current(): PushService | null {
    return this.service;
  }

  /** Shutdown: alerts under way get a few seconds to reach the relay (a slow relay cannot hold the exit). */
  async stop(): Promise<void> {
    await this.service?.settled(DRAIN_MS);
  }

  /** What the device routes answer from (spec 10 §6.4: 404 without a section, 503 without a registry). */
  web(): PushService | 'unavailable' | null {
    return this.unavailable ? 'unavailable' : this.service;
  }
}
