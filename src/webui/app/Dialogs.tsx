// The shell's modal dialogs: help, the command palette, settings and the token prompt. Their open state lives
// here; the page keys are off while any is open.
import { useCallback, useState } from 'preact/hooks';
import type { Command } from '../../dashboard/commands.ts';
import { CommandPalette } from '../chrome/CommandPalette.tsx';
import { SettingsDialog, type SettingsProps } from '../chrome/SettingsDialog.tsx';
import { TokenDialog } from '../chrome/TokenDialog.tsx';
import type { Api } from '../io/api.ts';
import { PairDialog } from '../views/pair/PairDialog.tsx';

export interface Dialogs {
  help: boolean;
  palette: boolean;
  settings: boolean;
  /** "Pair a device" (spec 10 §6.5) */
  pair: boolean;
  setPair(open: boolean): void;
  /** the token prompt, `rejected` when the daemon refused the token the page has */
  token: { rejected: boolean } | null;
  setHelp(open: boolean): void;
  setPalette(open: boolean): void;
  setSettings(open: boolean): void;
  /** opens the prompt (a prompt already open keeps its text) */
  askToken(rejected: boolean, keepOpen?: boolean): void;
  closeToken(): void;
  /** Ctrl/⌘-K, Ctrl-P: closes help and settings, toggles the palette */
  togglePalette(): void;
}

export function useDialogs(): Dialogs {
  const [help, setHelp] = useState(false);
  const [palette, setPalette] = useState(false);
  const [settings, setSettings] = useState(false);
  const [pair, setPair] = useState(false);
  const [token, setToken] = useState<{ rejected: boolean } | null>(null);
  const askToken = useCallback((rejected: boolean, keepOpen = false) => {
    setToken((d) => (keepOpen ? (d ?? { rejected }) : { rejected }));
  }, []);
  const closeToken = useCallback(() => setToken(null), []);
  const togglePalette = useCallback(() => {
    setHelp(false);
    setSettings(false);
    setPalette((open) => !open);
  }, []);
  return {
    help,
    palette,
    settings,
    pair,
    setPair,
    token,
    setHelp,
    setPalette,
    setSettings,
    askToken,
    closeToken,
    togglePalette,
  };
}

export interface DialogHostProps {
  dialogs: Dialogs;
  commands: Command[];
  /** `notify` is read only while the settings dialog is open */
  settings: Omit<SettingsProps, 'onClose' | 'notify'> & { notify(): SettingsProps['notify'] };
  hasToken: boolean;
  /** a token entered (a string) or cleared (null) */
  onToken(token: string | null): void;
  /** what the pairing panel reads: the API client and the cluster node's name */
  pairing: { api: Api; nodeName: string | null };
}

/** The palette, settings and token dialogs (help renders earlier in the page, under the wallboard). */
export function DialogHost({
  dialogs: d,
  commands,
  settings: s,
  hasToken,
  onToken,
  pairing,
}: DialogHostProps) {
  return (
    <>
      {d.palette && <CommandPalette commands={commands} onClose={() => d.setPalette(false)} />}
      {d.settings && (
        <SettingsDialog
          themePref={s.themePref}
          onTheme={s.onTheme}
          look={s.look}
          refresh={s.refresh}
          onRefresh={s.onRefresh}
          notify={s.notify()}
          onNotify={s.onNotify}
          onPair={() => {
            d.setSettings(false);
            d.setPair(true);
          }}
          onClose={() => d.setSettings(false)}
        />
      )}
      {d.pair && (
        <PairDialog api={pairing.api} nodeName={pairing.nodeName} onClose={() => d.setPair(false)} />
      )}
      {d.token && (
        <TokenDialog
          rejected={d.token.rejected}
          hasToken={hasToken}
          onSubmit={(token) => {
            d.closeToken();
            onToken(token);
          }}
          onClear={() => {
            d.closeToken();
            onToken(null);
          }}
          onClose={d.closeToken}
        />
      )}
    </>
  );
}
