// The pairing link of the dashboard's "Pair a device" panel (spec 10 §6.5): the payload a phone
// reads from the QR code, appended to the relay's pairing page. Pure (no DOM, no Node).

export interface PairPayload {
  v: 1;
  /** The cluster node name, else the dashboard's host. */
  name: string;
  /** The dashboard's origin: where the phone reaches this daemon. */
  url: string;
  /** The token this browser holds, or null. */
  token: string | null;
}

// Browsers and Node both have it; this folder's tsconfig has neither the DOM nor Node types.
declare function btoa(data: string): string;

/** base64url of the UTF-8 text, without padding. */
export function base64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function pairPayload(name: string, origin: string, token: string | null): PairPayload {
  return { v: 1, name, url: origin, token };
}

/** `<pairLinkBase>#<base64url(payload JSON)>`. */
export function pairLink(pairLinkBase: string, payload: PairPayload): string {
  return `${pairLinkBase}#${base64Url(JSON.stringify(payload))}`;
}

/** What the panel says about the token it would hand over (null: nothing to say). */
export function pairTokenNote(
  whoami: { authenticated: boolean; allScopes: boolean } | null,
  hasToken: boolean,
): { kind: 'warning' | 'note'; text: string } | null {
  if (!hasToken)
    return {
      kind: 'note',
      text: 'No token is stored in this browser, so the link carries none: the phone can pair only while this daemon asks for no token.',
    };
  if (whoami?.authenticated && whoami.allScopes)
    return {
      kind: 'warning',
      text: "This browser's token holds every scope (view, control, approve): a phone paired with it could start, cancel and approve. Prefer a token with only the scopes the phone needs.",
    };
  return null;
}
