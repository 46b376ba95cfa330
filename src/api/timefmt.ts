// Timestamp renderings of the web API: ISO-8601 with an explicit offset (Python isoformat style,
// microseconds only when non-zero) and the iCalendar UTC basic form.
import { civilInFrame, type Frame, frameZone } from '../schedule/zone.ts';
import { isoUtc, isoWithOffset } from '../util/iso-utc.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const render = isoWithOffset;

export { isoUtc };

export function isoUtcOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : isoUtc(ms);
}

/** The instant as wall-clock time in the frame, with that moment's offset. */
export function isoInFrame(ms: number, frame: Frame): string {
  if (frame.kind === 'utc') return render(ms, 0);
  const off = frameZone(frame).offset(ms);
  return render(ms + off, off);
}

/** Wall-clock fields of an instant in a frame: [hour, minute]. */
export function hourMinuteInFrame(ms: number, frame: Frame): [number, number] {
  const local = civilInFrame(frame, ms);
  const sod = Math.floor((((local % 86_400_000) + 86_400_000) % 86_400_000) / 1000);
  return [Math.floor(sod / 3600), Math.floor((sod % 3600) / 60)];
}

/** `20260705T120000Z` */
export function icsUtc(ms: number): string {
  const d = new Date(ms);
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`
  );
}
