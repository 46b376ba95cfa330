// The header's fleet-wide count of slots nobody recorded in the last 24 hours (`/slots/unaccounted`):
// zero in a healthy fleet, red above it. Hidden until the first answer.
import { useEffect, useState } from 'preact/hooks';
import type { ApiUnaccounted } from '../../../dashboard/slots.ts';
import { Api } from '../io/api.ts';

const REFRESH_MS = 30_000;

export function UnaccountedPill() {
  const [data, setData] = useState<ApiUnaccounted | null>(null);
  useEffect(() => {
    let live = true;
    // Its own client: the header has none, and a fresh one reads the tab's current token.
    const load = () =>
      new Api()
        .json<ApiUnaccounted>('/slots/unaccounted')
        .then((d) => live && setData(d))
        .catch(() => live && setData(null));
    void load();
    const timer = window.setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, []);
  if (data === null) return null;
  const hot = data.unaccounted > 0;
  const title = hot
    ? `slots nobody recorded in the last 24 h: ${data.jobs.map((j) => `${j.name} ${j.unaccounted}`).join(', ')}`
    : 'every slot of the last 24 h has a recorded fate';
  return (
    <span
      class={`pill pill-slots${hot ? ' pill-hot' : ''}`}
      title={title}
      data-testid="unaccounted"
      role="status"
    >
      <span class="dot" aria-hidden="true" />
      <b>{data.unaccounted}</b> unaccounted
    </span>
  );
}
