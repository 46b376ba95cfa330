// The header's fleet-wide count of slots nobody recorded in the last 24 hours (`/slots/unaccounted`):
// zero in a healthy fleet, red above it. Hidden until the first answer. It asks through the app's
// client, so a 401 opens the token prompt like every other request, and it rests while refresh is
// paused (one answer on mount, none after).
import { useEffect, useState } from 'preact/hooks';
import type { ApiUnaccounted } from '../../dashboard/slots.ts';
import type { Api } from '../io/api.ts';

const REFRESH_MS = 30_000;

export function UnaccountedPill({ api, paused }: { api: Api; paused: boolean }) {
  const [data, setData] = useState<ApiUnaccounted | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .json<ApiUnaccounted>('/slots/unaccounted')
        .then((d) => live && setData(d))
        .catch(() => live && setData(null));
    void load();
    const timer = paused ? null : window.setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      if (timer !== null) window.clearInterval(timer);
    };
  }, [api, paused]);
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
