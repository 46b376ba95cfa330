// The TUI's saved preferences (spec 08 §4.7): `$XDG_CONFIG_HOME/cronstable/tui.json`, else `~/.config/...`,
// `%APPDATA%` on Windows. A missing or corrupt file means defaults; a value of the wrong type falls back; a
// save writes a temp file and renames it, so a crash never leaves half a file. The token is never stored.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { errorText } from '../../util/errors.ts';
import { HUES, type Hue } from '../text/theme.ts';

export const POLL_CHOICES_MS = [1000, 2000, 3000, 5000, 10_000, 0] as const;
export const ZEN_IDLE_CHOICES = [30, 60, 90, 120, 300] as const;
export const CVD_CHOICES = ['none', 'deutan', 'tritan'] as const;

export interface Prefs {
  theme: Hue;
  light: boolean;
  cvd: (typeof CVD_CHOICES)[number];
  poll_ms: number;
  wrap: boolean;
  timestamps: boolean;
  compact: boolean;
  sound: boolean;
  zen: boolean;
  zen_idle_s: number;
  boot: boolean;
  ascii: boolean;
  boot_last: number;
}

export const DEFAULT_PREFS: Prefs = {
  theme: 'standard',
  light: false,
  cvd: 'none',
  poll_ms: 3000,
  wrap: false,
  timestamps: false,
  compact: false,
  sound: false,
  zen: true,
  zen_idle_s: 90,
  boot: true,
  ascii: false,
  boot_last: 0,
};

export function prefsPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'cronstable', 'tui.json');
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'cronstable', 'tui.json');
}

/** Coerces parsed JSON into prefs: unknown keys dropped, each bad value replaced by its default. */
export function normalizePrefs(raw: unknown): Prefs {
  const out: Prefs = { ...DEFAULT_PREFS };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return out;
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_PREFS) as (keyof Prefs)[]) {
    const v = r[key];
    if (typeof v === typeof DEFAULT_PREFS[key] && (typeof v !== 'number' || Number.isFinite(v)))
      (out as unknown as Record<string, unknown>)[key] = v;
  }
  if (!HUES.includes(out.theme)) out.theme = DEFAULT_PREFS.theme;
  if (!CVD_CHOICES.includes(out.cvd)) out.cvd = DEFAULT_PREFS.cvd;
  if (!(POLL_CHOICES_MS as readonly number[]).includes(out.poll_ms)) out.poll_ms = DEFAULT_PREFS.poll_ms;
  if (!(ZEN_IDLE_CHOICES as readonly number[]).includes(out.zen_idle_s))
    out.zen_idle_s = DEFAULT_PREFS.zen_idle_s;
  return out;
}

/**
 * The prefs a run starts with (Q5): `--theme` replaces the saved theme and is saved at once (it is documented
 * as persisted); `--poll` and `--ascii` never enter the prefs, they live in the run's state, so a later save
 * (a key, the settings panel) cannot make them stick by accident.
 */
export function startPrefs(
  saved: Prefs,
  theme: { hue: Hue; light: boolean } | null,
): { prefs: Prefs; save: boolean } {
  if (theme === null) return { prefs: saved, save: false };
  return { prefs: { ...saved, theme: theme.hue, light: theme.light }, save: true };
}

export function loadPrefs(path: string): Prefs {
  try {
    return normalizePrefs(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return { ...DEFAULT_PREFS };
  }
}

/** Writes the prefs (sorted keys, 2-space JSON); returns the error text or null. */
export function savePrefs(path: string, prefs: Prefs): string | null {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(prefs).sort()) sorted[k] = prefs[k as keyof Prefs];
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(sorted, null, 2)}\n`);
    renameSync(tmp, path);
    return null;
  } catch (e) {
    return errorText(e);
  }
}
