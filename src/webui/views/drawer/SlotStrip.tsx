// The job drawer's slot strip: one cell per scheduled slot of the last 24 hours (newest right),
// coloured by what became of it, from `/jobs/{name}/slots`; hover shows the node and the reason.
import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../../dashboard/format.ts';
import { type ApiSlots, slotTitle, slotTone, stripCells } from '../../../dashboard/slots.ts';
import type { Api } from '../../io/api.ts';

const MAX_CELLS = 96;
const REFRESH_MS = 30_000;

export function SlotStrip({ name, api }: { name: string; api: Api }) {
  const [data, setData] = useState<ApiSlots | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .json<ApiSlots>(`/jobs/${encodeURIComponent(name)}/slots`)
        .then((d) => {
          if (live) {
            setData(d);
            setError(null);
          }
        })
        .catch((e: unknown) => {
          if (live) setError(errorText(e));
        });
    void load();
    const timer = window.setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [name]);
  if (data === null) return error ? <p class="slotstrip-note muted">slots: {error}</p> : null;
  if (data.slots.length === 0) return null;
  const cells = stripCells(data.slots, MAX_CELLS);
  const counts = Object.entries(data.counts).sort((a, b) => b[1] - a[1]);
  return (
    <section class="slotstrip" aria-label="Slots of the last 24 hours" data-testid="slot-strip">
      <ol class="slotstrip-cells">
        {cells.map((s) => {
          const title = slotTitle(s);
          return (
            <li
              key={s.scheduled_at + (s.node ?? '')}
              class={`slotcell slot-${slotTone(s.outcome)}`}
              title={title}
              aria-label={title}
              data-outcome={s.outcome}
              data-node={s.node ?? ''}
            />
          );
        })}
      </ol>
      <p class="slotstrip-legend">
        {counts.map(([k, n]) => (
          <span key={k} class={`slotkey${k === 'unaccounted' ? ' is-hot' : ''}`}>
            <span class={`slotcell slot-${slotTone(k)}`} aria-hidden="true" />
            {k} <b>{n}</b>
          </span>
        ))}
        {data.slots.length > cells.length && (
          <span class="muted">
            newest {cells.length} of {data.slots.length}
          </span>
        )}
      </p>
    </section>
  );
}
