// "Pair a device" (spec 10 §6.5): a QR code of the pairing link for the phone app to scan, and
// the same payload as copyable text. Opened from settings and from the command palette.

import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import { pairLink, pairPayload, pairTokenNote } from '../../../dashboard/pair.ts';
import { Dialog } from '../../chrome/Dialog.tsx';
import { useRegisterCommands } from '../../chrome/pageCommands.ts';
import type { Api } from '../../io/api.ts';

interface Whoami {
  authenticated: boolean;
  allScopes: boolean;
  pairLinkBase: string;
}

/** The palette's "Pair a device" entry while the page is mounted. */
export function usePairCommand(open: () => void): void {
  useRegisterCommands('pair', () => [
    {
      id: 'app.pair',
      title: 'Pair a device',
      group: 'App',
      keywords: 'phone push alerts qr mobile',
      run: open,
    },
  ]);
}

export function PairDialog({
  api,
  nodeName,
  onClose,
}: {
  api: Api;
  nodeName: string | null;
  onClose(): void;
}) {
  const [whoami, setWhoami] = useState<Whoami | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const payload = pairPayload(nodeName ?? location.host, location.origin, api.storedToken());
  const link = whoami ? pairLink(whoami.pairLinkBase, payload) : null;

  useEffect(() => {
    api.json<Whoami>('/whoami').then(setWhoami, (e: unknown) => setError(String(e)));
  }, [api]);
  useEffect(() => {
    if (link)
      QRCode.toDataURL(link, { margin: 4, scale: 6, errorCorrectionLevel: 'M' }).then(setQr, (e: unknown) =>
        setError(String(e)),
      );
  }, [link]);

  const note = pairTokenNote(whoami, api.hasToken());
  const json = JSON.stringify(payload, null, 2);
  return (
    <Dialog title="Pair a device" onClose={onClose}>
      <div class="pair" data-testid="pair-panel">
        <p class="setting-note">Scan this with the phone app to receive this daemon's push alerts.</p>
        {error && <p class="pair-error">Could not build the pairing link: {error}</p>}
        {qr && link && (
          <img
            class="pair-qr"
            data-testid="pair-qr"
            src={qr}
            alt={`QR code of ${whoami?.pairLinkBase}`}
            data-link={link}
          />
        )}
        {note && (
          <p
            class={note.kind === 'warning' ? 'pair-warning' : 'setting-note'}
            data-testid={`pair-${note.kind}`}
          >
            {note.text}
          </p>
        )}
        <label for="pair-json">Or copy the pairing payload</label>
        <textarea id="pair-json" data-testid="pair-json" readOnly rows={6} value={json} />
        <button type="button" class="btn" onClick={() => void navigator.clipboard?.writeText(json)}>
          Copy
        </button>
      </div>
    </Dialog>
  );
}
