// Settings (spec 06 §9.2): theme, colour-vision-safe status colours, density, UI scale, motion, refresh interval
// and desktop notifications on new failures. Every choice applies at once and persists under `cronstable.*`.
import type { ComponentChildren } from 'preact';
import {
  CVD_LABEL,
  CVD_MODES,
  type CvdMode,
  DENSITIES,
  type Density,
  REFRESH_CHOICES,
  type RefreshChoice,
  SCALES,
  type Scale,
  THEME_LABEL,
  THEME_PREFS,
  type ThemePref,
} from '../../dashboard/settings.ts';
import type { Look } from '../io/theme.ts';
import { Dialog } from './Dialog.tsx';

export type NotifyState = 'off' | 'on' | 'denied' | 'unsupported';

export interface SettingsProps {
  themePref: ThemePref;
  onTheme(pref: ThemePref): void;
  look: Look;
  refresh: RefreshChoice;
  onRefresh(choice: RefreshChoice): void;
  notify: NotifyState;
  onNotify(on: boolean): void;
  /** Opens "Pair a device" (spec 10 §6.5). */
  onPair?(): void;
  onClose(): void;
}

function Field({ id, label, children }: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="setting">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

function Choice<T extends string>({
  id,
  value,
  options,
  label,
  onChange,
}: {
  id: string;
  value: T;
  options: readonly T[];
  label(v: T): string;
  onChange(v: T): void;
}) {
  return (
    <select
      id={id}
      value={value}
      data-setting={id}
      onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as T)}
    >
      {options.map((o) => (
        <option key={o} value={o}>
          {label(o)}
        </option>
      ))}
    </select>
  );
}

export function SettingsDialog(p: SettingsProps) {
  const l = p.look;
  return (
    <Dialog title="Settings" onClose={p.onClose}>
      <form class="settings" data-testid="settings" onSubmit={(e) => e.preventDefault()}>
        <Field id="set-theme" label="Theme">
          <Choice<ThemePref>
            id="set-theme"
            value={p.themePref}
            options={THEME_PREFS}
            label={(v) => THEME_LABEL[v]}
            onChange={p.onTheme}
          />
        </Field>
        <Field id="set-cvd" label="Status colours">
          <Choice<CvdMode>
            id="set-cvd"
            value={l.cvd}
            options={CVD_MODES}
            label={(v) => CVD_LABEL[v]}
            onChange={l.setCvd}
          />
        </Field>
        <Field id="set-density" label="Density">
          <Choice<Density>
            id="set-density"
            value={l.density}
            options={DENSITIES}
            label={(v) => v}
            onChange={l.setDensity}
          />
        </Field>
        <Field id="set-scale" label="UI scale">
          <Choice<Scale>
            id="set-scale"
            value={l.scale}
            options={SCALES}
            label={(v) => `${v} %`}
            onChange={l.setScale}
          />
        </Field>
        <Field id="set-motion" label="Reduce motion">
          <input
            id="set-motion"
            type="checkbox"
            checked={l.motion === 'reduce'}
            data-setting="set-motion"
            onChange={(e) => l.setMotion((e.currentTarget as HTMLInputElement).checked ? 'reduce' : 'system')}
          />
        </Field>
        <Field id="set-refresh" label="Refresh every">
          <Choice<RefreshChoice>
            id="set-refresh"
            value={p.refresh}
            options={REFRESH_CHOICES}
            label={(v) => (v === 'paused' ? 'paused' : `${v} s`)}
            onChange={p.onRefresh}
          />
        </Field>
        <Field id="set-notify" label="Desktop notification on new failures">
          <input
            id="set-notify"
            type="checkbox"
            checked={p.notify === 'on'}
            disabled={p.notify === 'unsupported'}
            aria-describedby="set-notify-note"
            data-setting="set-notify"
            onChange={(e) => p.onNotify((e.currentTarget as HTMLInputElement).checked)}
          />
        </Field>
        <p id="set-notify-note" class="setting-note">
          {p.notify === 'denied'
            ? 'The browser blocks notifications for this page; allow them in its site settings.'
            : p.notify === 'unsupported'
              ? 'This browser has no Notification API (or the page is not a secure context).'
              : 'One notification per refresh that finds a job failing anew, while this tab is open.'}
        </p>
        {p.onPair && (
          <div class="setting">
            <span>Phone alerts</span>
            <button type="button" class="btn" data-testid="open-pair" onClick={p.onPair}>
              Pair a device…
            </button>
          </div>
        )}
        <p class="setting-note">
          Saved in this browser (<code>localStorage</code>, keys <code>cronstable.*</code>).
        </p>
      </form>
    </Dialog>
  );
}
