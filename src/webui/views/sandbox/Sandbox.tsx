// The cron sandbox: type any expression and zone, see whether the engine accepts it, its plain-English
// description and its next 12 fires — computed by the bundled engine, the same one the daemon schedules with.
// `openSandbox()` opens it from anywhere (toolbar button, pressure suggestions, the command palette).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { viewerZone } from '../../../dashboard/engine.ts';
import { formatIn } from '../../../dashboard/format.ts';
import { SANDBOX_COUNT, SANDBOX_ZONES, sandboxPreview } from '../../../dashboard/sandbox.ts';
import { Dialog } from '../../chrome/Dialog.tsx';
import { useNow } from '../../io/hooks.ts';

const OPEN_EVENT = 'cronstable:sandbox';

interface OpenDetail {
  expr?: string;
  zone?: string;
}

/** Opens the sandbox, optionally pre-filled (the palette's and the pressure card's entry point). */
export function openSandbox(expr?: string, zone?: string): void {
  window.dispatchEvent(new CustomEvent<OpenDetail>(OPEN_EVENT, { detail: { expr, zone } }));
}

/** Mounted once by the shell: listens for `openSandbox()` and renders the dialog while open. */
export function SandboxHost() {
  const [open, setOpen] = useState<OpenDetail | null>(null);
  useEffect(() => {
    const onOpen = (e: Event): void => setOpen({ ...(e as CustomEvent<OpenDetail>).detail });
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => window.removeEventListener(OPEN_EVENT, onOpen);
  }, []);
  return open ? <SandboxDialog initial={open} onClose={() => setOpen(null)} /> : null;
}

function SandboxDialog({ initial, onClose }: { initial: OpenDetail; onClose(): void }) {
  const [expr, setExpr] = useState(initial.expr ?? '*/15 9-17 * * mon-fri');
  const [zone, setZone] = useState(initial.zone ?? 'UTC');
  const [seed, setSeed] = useState('');
  // Re-evaluate every second so the relative labels and a fire that just passed stay right.
  const now = useNow();
  const second = Math.floor(now / 1000) * 1000;
  const result = useMemo(
    () => sandboxPreview(expr, zone.trim() || 'UTC', second, { seed: seed.trim() }),
    [expr, zone, seed, second],
  );
  const zones = useMemo(() => [...new Set([...SANDBOX_ZONES, viewerZone()])], []);
  return (
    <Dialog title="Cron sandbox" onClose={onClose} wide>
      <div class="sandbox" data-testid="sandbox">
        <div class="sandbox-form">
          <label class="field">
            <span>expression</span>
            <input
              type="text"
              value={expr}
              spellcheck={false}
              autocomplete="off"
              data-autofocus
              data-testid="sandbox-expr"
              aria-describedby="sandbox-verdict"
              onInput={(e) => setExpr((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <label class="field">
            <span>zone</span>
            <input
              type="text"
              list="sandbox-zones"
              value={zone}
              spellcheck={false}
              autocomplete="off"
              data-testid="sandbox-zone"
              onInput={(e) => setZone((e.currentTarget as HTMLInputElement).value)}
            />
            <datalist id="sandbox-zones">
              {zones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </label>
          <label class="field field-narrow">
            <span>
              seed <span class="muted">(H)</span>
            </span>
            <input
              type="text"
              value={seed}
              placeholder="job name"
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => setSeed((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
        </div>
        <div id="sandbox-verdict" class="sandbox-verdict" aria-live="polite" data-testid="sandbox-verdict">
          {result.kind === 'empty' && (
            <span class="muted">type a cron expression (5, 6 or 7 fields, or @hourly…)</span>
          )}
          {result.kind === 'error' && (
            <span class="verdict verdict-bad">
              <b>✕ invalid</b> {result.error}
            </span>
          )}
          {result.kind === 'reboot' && (
            <span class="verdict verdict-ok">
              <b>✓ valid</b> {result.description}
            </span>
          )}
          {result.kind === 'ok' && (
            <span class="verdict verdict-ok">
              <b>✓ valid</b> <span data-testid="sandbox-description">{result.description}</span>
              {result.resolved && (
                <span class="muted">
                  {' '}
                  · H resolves to <code>{result.resolved}</code>
                </span>
              )}
            </span>
          )}
        </div>
        {result.kind === 'ok' &&
          (result.fires.length === 0 ? (
            <p class="empty">This schedule never fires.</p>
          ) : (
            <ol
              class="sandbox-fires"
              aria-label={`Next ${SANDBOX_COUNT} fires in ${zone}`}
              data-testid="sandbox-fires"
            >
              {result.fires.map((f) => (
                <li key={f.at} data-at={f.at}>
                  <span class="muted">{f.weekday}</span>{' '}
                  <time dateTime={new Date(f.at).toISOString()}>{f.civil}</time>{' '}
                  <span class="muted">{formatIn(f.at - now)}</span>
                </li>
              ))}
            </ol>
          ))}
        <p class="muted small">
          Computed in this browser by the daemon's own cron engine (seconds, years, L, W, #, H and DST
          included).
        </p>
      </div>
    </Dialog>
  );
}
