// The push channel of one daemon (spec 10 §6.2-§6.3): a mirror of the device registry for the
// reporters, and the delivery of one alert to every paired device (sealed per device, posted
// concurrently, no retry). Reporters call `send` and await nothing the scheduler waits on.
import type { PushSettings } from '../../config/push.ts';
import type { Clock } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { PushAlert, ReportLogger } from '../types.ts';
import type { DeviceRegistry, PushDevice } from './device.ts';
import { collapseId, fitPlaintext } from './payload.ts';
import { postToRelay, type RelayOutcome } from './relay.ts';
import { seal } from './seal.ts';

/** How long the reporters' copy of the registry is trusted, and how soon a failed read is retried. */
export const MIRROR_FRESH_MS = 60_000;
export const MIRROR_RETRY_MS = 5_000;

interface Mirror {
  devices: PushDevice[];
  salt: string;
}

export class PushService {
  private mirror: Mirror | null = null;
  private nextReadMs = 0;
  private reading: Promise<Mirror | null> | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly settings: PushSettings,
    readonly registry: DeviceRegistry,
    private readonly log: ReportLogger,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** The mirror, re-read when stale; a failed read keeps the last copy and retries in 5 s. */
  private async devices(): Promise<Mirror | null> {
    if (this.clock.now() < this.nextReadMs) return this.mirror;
    this.reading ??= (async () => {
      try {
        const [devices, salt] = await Promise.all([this.registry.list(), this.registry.salt()]);
        this.mirror = { devices, salt };
        this.nextReadMs = this.clock.now() + MIRROR_FRESH_MS;
      } catch (e) {
        this.log.error(`push: cannot read the device registry: ${errorText(e)}`);
        this.nextReadMs = this.clock.now() + MIRROR_RETRY_MS;
      } finally {
        this.reading = null;
      }
      return this.mirror;
    })();
    return this.reading;
  }

  /** A pairing or revocation on this node shows in the next alert, not a minute later. */
  invalidate(): void {
    this.nextReadMs = 0;
  }

  /** Starts a delivery the caller does not wait for; `settled()` does. */
  dispatch(alert: PushAlert): void {
    const p = this.send(alert).catch((e) => this.log.error(`push: delivery failed: ${errorText(e)}`));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /** Resolves when every delivery started so far has settled, or after `withinMs`. */
  async settled(withinMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((r) => {
      timer = setTimeout(r, withinMs);
    });
    await Promise.race([Promise.all([...this.inFlight]), late]);
    clearTimeout(timer);
  }

  /** Delivers one alert to every paired device; resolves when every POST has settled, never rejects. */
  async send(alert: PushAlert): Promise<void> {
    const mirror = await this.devices();
    if (!mirror || mirror.devices.length === 0) {
      this.log.warning(
        `push: report is enabled but no device is paired; dropping alert for ${alert.about} (pair one at POST /push/devices)`,
      );
      return;
    }
    const id = collapseId(mirror.salt, alert.plaintext);
    const { plaintext, fits } = fitPlaintext(alert.plaintext);
    if (!fits) {
      this.log.error(
        `push: the alert for ${alert.about} does not fit a push message even cut down; dropping it`,
      );
      return;
    }
    const bytes = Buffer.from(JSON.stringify(plaintext), 'utf8');
    await Promise.all(
      mirror.devices.map(async (device) => {
        const outcome = await this.deliver(device, bytes, id, alert);
        if (outcome.error) this.log.error(`push: delivery to device ${device.id} failed: ${outcome.error}`);
      }),
    );
  }

  /** One sealed POST for one device. */
  async deliver(
    device: PushDevice,
    bytes: Uint8Array,
    collapse: string,
    alert: Pick<PushAlert, 'priority' | 'event'>,
  ): Promise<RelayOutcome> {
    let ciphertext: string;
    try {
      ciphertext = Buffer.from(await seal(bytes, Buffer.from(device.publicKey, 'base64'))).toString('base64');
    } catch (e) {
      return { status: null, error: `cannot seal to the device's key: ${errorText(e)}` };
    }
    return postToRelay(this.settings.relayUrl, this.settings.relayTimeout, {
      v: 1,
      device: device.pushToken,
      ciphertext,
      collapseId: collapse,
      priority: alert.priority,
      event: alert.event,
    });
  }
}
